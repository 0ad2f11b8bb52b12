/**
 * The dashboard's one date format: ISO-like, in the reader's time zone, the zone named
 * (`2025-11-22 03:00:00 CET`), so that every time on every screen reads and sorts the same way.
 */
export function formatTime(value: string | number | Date): string {
  const date = new Date(value);
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'short',
    })
      .formatToParts(date)
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second} ${parts.timeZoneName}`;
}

/** Hours and minutes only, for chart axes: same zone as formatTime. */
export function formatHour(value: string | Date): string {
  return new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(value));
}

/** The envelope's `created` (Unix seconds) as an ISO 8601 instant. */
export const isoOfUnixSeconds = (seconds: number): string => new Date(seconds * 1000).toISOString();
