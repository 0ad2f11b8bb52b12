import { EventCatalog } from '../catalog/event-catalog';
import { EVENT_TYPES } from '../catalog/event-types';
import { checkDescription, checkEvents, checkUrl } from './webhook';

const catalog = new EventCatalog();
const fiftyOne = [...EVENT_TYPES.map((d) => d.type), ...Array.from({ length: 19 }, (_, i) => `custom.${i}`)];

describe(checkEvents.name, () => {
  it('keeps 1 to 50 distinct catalog types, in order', () => {
    expect(checkEvents(['email.bounced', 'email.delivered'], catalog)).toEqual(['email.bounced', 'email.delivered']);
  });

  it('checks the 50-entry limit first, before what the entries are', () => {
    expect(fiftyOne).toHaveLength(51);
    expect(() => checkEvents(fiftyOne, catalog)).toThrow(expect.objectContaining({ code: 'limit_exceeded' }));
    expect(() => checkEvents(Array(51).fill('email.delivered'), catalog)).toThrow(expect.objectContaining({ code: 'limit_exceeded' }));
  });

  it.each([
    [[], 'at least one'],
    [['email.nope'], 'unknown event type'],
    [['email.delivered', 'email.delivered'], 'listed twice'],
    [[42], 'must be a string'],
    ['email.delivered', 'must be an array'],
    [undefined, 'must be an array'],
  ])('refuses %j as invalid_parameter (%s)', (events, message) => {
    expect(() => checkEvents(events, catalog)).toThrow(expect.objectContaining({ code: 'invalid_parameter', message: expect.stringContaining(message) }));
  });
});

describe(checkUrl.name, () => {
  it('keeps the URL as given', () => {
    expect(checkUrl('https://Example.com', false)).toBe('https://Example.com');
  });

  it.each([['ftp://example.com/x'], ['not a url'], [`https://example.com/${'a'.repeat(2048)}`], [42]])('refuses %j', (url) => {
    expect(() => checkUrl(url, true)).toThrow(expect.objectContaining({ code: 'invalid_parameter' }));
  });

  it('refuses private literal addresses unless allowed', () => {
    expect(() => checkUrl('http://10.0.0.1/hook', false)).toThrow(expect.objectContaining({ code: 'invalid_parameter' }));
    expect(() => checkUrl('http://localhost:3000/hook', false)).toThrow(expect.objectContaining({ code: 'invalid_parameter' }));
    expect(checkUrl('http://127.0.0.1:3000/hook', true)).toBe('http://127.0.0.1:3000/hook');
  });
});

describe(checkDescription.name, () => {
  it('takes an optional string of at most 500 characters', () => {
    expect(checkDescription(undefined)).toBeNull();
    expect(checkDescription(null)).toBeNull();
    expect(checkDescription('CRM sync')).toBe('CRM sync');
    expect(() => checkDescription('x'.repeat(501))).toThrow(expect.objectContaining({ code: 'invalid_parameter' }));
    expect(() => checkDescription(5)).toThrow(expect.objectContaining({ code: 'invalid_parameter' }));
  });
});
