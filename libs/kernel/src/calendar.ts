const DATE_AND_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?/i;
const OFFSET = /([+-])(\d{2}):?(\d{2})$/;

/**
 * Whether the date, time and offset an ISO 8601 timestamp spells exist: no 30 February, no month
 * 13, no hour 24, no minute or second 60, no offset past ±23:59. `Date.parse` rolls such values
 * over (30 February is 2 March) instead of refusing them. Checks the fields only: the caller's
 * pattern decides the format it accepts.
 */
export function isOnCalendar(timestamp: string): boolean {
  const fields = DATE_AND_TIME.exec(timestamp);
  if (!fields) return false;
  const [year, month, day, hour, minute, second] = fields.slice(1).map((f) => (f === undefined ? 0 : Number(f)));
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) return false;
  const offset = OFFSET.exec(timestamp);
  return !offset || (Number(offset[2]) <= 23 && Number(offset[3]) <= 59);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
}
