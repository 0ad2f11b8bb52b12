import { Writable } from 'node:stream';
import { createLogger } from './logger';
import { LazyChildLogger } from './lazy-child-logger';

function sink() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      callback();
    },
  });
  return { lines, stream };
}

describe(LazyChildLogger.name, () => {
  it('writes the same lines as a pino child, with its bindings and redaction', () => {
    const { lines, stream } = sink();
    const parent = createLogger('info', stream);
    const lazy = new LazyChildLogger(parent, { requestId: 'r1' }, {});
    const real = parent.child({ requestId: 'r1' }, {});
    lazy.error({ err: new Error('boom'), call: { token: 'secret-value' } }, 'unhandled error');
    real.error({ err: new Error('boom'), call: { token: 'secret-value' } }, 'unhandled error');
    const [a, b] = lines.map(({ time: _time, err, ...rest }) => ({ ...rest, errMessage: (err as { message: string }).message }));
    expect(a).toEqual(b);
    expect(a).toMatchObject({ level: 'error', requestId: 'r1', call: { token: '[redacted]' }, msg: 'unhandled error', errMessage: 'boom' });
  });

  it('makes no child for lines below its level, and follows a level of its own', () => {
    const { lines, stream } = sink();
    const parent = createLogger('info', stream);
    const child = jest.spyOn(parent, 'child');
    const lazy = new LazyChildLogger(parent, { requestId: 'r2' }, {});
    lazy.debug('not written');
    expect(child).not.toHaveBeenCalled();
    expect(lazy.level).toBe('info');
    const verbose = new LazyChildLogger(parent, { requestId: 'r3' }, { level: 'debug' });
    expect(verbose.isLevelEnabled('debug')).toBe(true);
    verbose.debug('written');
    expect(lines.map((l) => [l.level, l.requestId, l.msg])).toEqual([['debug', 'r3', 'written']]);
  });

  it('hands out grandchildren of the real child', () => {
    const { lines, stream } = sink();
    const lazy = new LazyChildLogger(createLogger('info', stream), { requestId: 'r4' }, {});
    lazy.child({ step: 'x' }).info('hello');
    expect(lines[0]).toMatchObject({ requestId: 'r4', step: 'x', msg: 'hello' });
  });
});
