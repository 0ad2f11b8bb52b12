import { callOutcome } from './call-outcome';

describe(callOutcome.name, () => {
  it('labels an answer by its status class, and a status no class holds apart', () => {
    expect(callOutcome(true, 204, null)).toEqual({ result: 'succeeded', reason: '2xx' });
    expect(callOutcome(false, 100, null).reason).toBe('1xx');
    expect(callOutcome(false, 599, null).reason).toBe('5xx');
    expect(callOutcome(false, 999, null).reason).toBe('other_status');
    expect(callOutcome(false, 600, null).reason).toBe('other_status');
  });

  it('labels a call without an answer by its error kind', () => {
    expect(callOutcome(false, null, 'timeout')).toEqual({ result: 'failed', reason: 'timeout' });
    expect(callOutcome(false, null, null).reason).toBe('connection_reset');
  });
});
