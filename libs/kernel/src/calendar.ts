/**
 * ISO 8601 instants as the API takes them: a date and time with a time zone (`Z`, `±hh:mm` or
 * `±hhmm`; seconds and up to nine decimals optional; `T` and `Z` in either case), or a date alone,
 * read as its midnight UTC. A space where the zone's sign goes is read as `+`: an unencoded `+` in
 * a query string arrives as a space.
 */
const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+\- ])(\d{2}):?(\d{2})))?$/i;

export type IsoInstant = { ok: true; date: Date } | { ok: false; reason: 'format' | 'calendar' };

/**
 * Reads an ISO 8601 instant (the forms above). `calendar` when the fields name a date, time or
 * offset that does not exist: no 30 February, no month 13, no hour 24, no minute or second 60, no
 * offset past ±23:59 (`Date.parse` rolls such values over, 30 February to 2 March, instead of
 * refusing them).
 */
export function readIsoInstant(value: unknown): IsoInstant {
  const fields = typeof value === 'string' ? ISO_INSTANT.exec(value) : null;
  if (!fields) return { ok: false, reason: 'format' };
  const [year, month, day, hour, minute, second] = fields.slice(1, 7).map((f) => (f === undefined ? 0 : Number(f)));
  const [offsetHours, offsetMinutes] = [fields[10], fields[11]].map((f) => (f === undefined ? 0 : Number(f)));
  const onCalendar = month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month) && hour <= 23 && minute <= 59 && second <= 59;
  if (!onCalendar || offsetHours > 23 || offsetMinutes > 59) return { ok: false, reason: 'calendar' };
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, fields[7] === undefined ? 0 : Number(fields[7].padEnd(3, '0').slice(0, 3)));
  const offsetMs = (offsetHours * 60 + offsetMinutes) * 60_000 * (fields[9] === '-' ? -1 : 1);
  return { ok: true, date: new Date(date.getTime() - offsetMs) };
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
}
