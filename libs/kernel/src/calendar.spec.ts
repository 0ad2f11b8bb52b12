import { readIsoInstant } from './calendar';

describe('readIsoInstant', () => {
  it.each([
    ['2025-02-28T00:00:00Z', '2025-02-28T00:00:00.000Z'],
    ['2024-02-29T23:59:59.999Z', '2024-02-29T23:59:59.999Z'],
    ['2025-12-31T10:00Z', '2025-12-31T10:00:00.000Z'],
    ['2025-01-01T00:00:00+14:00', '2024-12-31T10:00:00.000Z'],
    ['2025-06-30T12:00:00-0930', '2025-06-30T21:30:00.000Z'],
    ['2000-02-29T00:00:00Z', '2000-02-29T00:00:00.000Z'],
    ['2025-06-30t12:00:00.123456789z', '2025-06-30T12:00:00.123Z'],
    ['2025-06-30T12:00:00.5+01:00', '2025-06-30T11:00:00.500Z'],
    // an unencoded + in a query string arrives as a space
    ['2025-06-30T12:00:00 01:00', '2025-06-30T11:00:00.000Z'],
    // a date alone is its midnight UTC
    ['2025-06-30', '2025-06-30T00:00:00.000Z'],
    ['0050-01-01T00:00:00Z', '0050-01-01T00:00:00.000Z'],
  ])('reads %s as %s', (timestamp, iso) => expect(readIsoInstant(timestamp)).toEqual({ ok: true, date: new Date(iso) }));

  it.each([
    '2025-02-29T00:00:00Z',
    '2025-02-30T00:00:00Z',
    '1900-02-29T00:00:00Z',
    '2026-11-31T00:00:00Z',
    '2025-13-01T00:00:00Z',
    '2025-00-10T00:00:00Z',
    '2025-01-00T00:00:00Z',
    '2025-02-01T24:00:00Z',
    '2025-02-01T10:60:00Z',
    '2025-02-01T10:00:60Z',
    '2025-02-01T10:00:00+24:00',
    '2025-02-01T10:00:00+05:60',
    '2025-02-30',
  ])('refuses %s as off the calendar', (timestamp) => expect(readIsoInstant(timestamp)).toEqual({ ok: false, reason: 'calendar' }));

  it.each(['yesterday', '2025-02-01T10:00:00', '2025-02-01 10:00:00Z', '2025-2-1', '2025-02-01T10Z', '1732238400', '', ' 2025-02-01', 42, null])(
    'refuses %p as not an ISO 8601 instant',
    (value) => expect(readIsoInstant(value)).toEqual({ ok: false, reason: 'format' }),
  );
});
