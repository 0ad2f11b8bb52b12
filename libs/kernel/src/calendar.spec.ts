import { isOnCalendar } from './calendar';

describe('isOnCalendar', () => {
  it.each(['2025-02-28T00:00:00Z', '2024-02-29T23:59:59.999Z', '2025-12-31T10:00Z', '2025-01-01T00:00:00+14:00', '2025-06-30T12:00:00-0930', '2000-02-29T00:00:00Z'])(
    'accepts %s',
    (timestamp) => expect(isOnCalendar(timestamp)).toBe(true),
  );

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
    'yesterday',
  ])('refuses %s', (timestamp) => expect(isOnCalendar(timestamp)).toBe(false));
});
