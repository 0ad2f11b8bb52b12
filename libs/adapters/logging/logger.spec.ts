import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { bufferedLogDestination, createLogger, PinoNestLogger, redactUrl } from './logger';

function capture(level: 'info' | 'debug') {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      callback();
    },
  });
  return { lines, sut: new PinoNestLogger(createLogger(level, sink)) };
}

describe(PinoNestLogger.name, () => {
  it("logs an error of start-up once (the process prints it as it exits), Nest's report of it at debug with its stack", () => {
    const { lines, sut } = capture('debug');
    sut.error('DomainError: SQLITE_PATH: cannot open the SQLite database', 'DomainError: ...\n    at open', 'ExceptionHandler');
    sut.error('delivery failed', undefined, 'Dispatcher');
    expect(lines.map((l) => [l.level, l.context, l.msg])).toEqual([
      ['debug', 'ExceptionHandler', 'DomainError: SQLITE_PATH: cannot open the SQLite database'],
      ['error', 'Dispatcher', 'delivery failed'],
    ]);
    expect(lines[0].trace).toContain('at open');
  });

  it("logs Nest's route mapping and module lines at debug, everything else at info", () => {
    const { lines, sut } = capture('debug');
    sut.log('Mapped {/health, GET} route', 'RouterExplorer');
    sut.log('AppModule dependencies initialized', 'InstanceLoader');
    sut.log('consuming webhook-delivery', 'Dispatcher');
    expect(lines.map((l) => [l.level, l.context])).toEqual([
      ['debug', 'RouterExplorer'],
      ['debug', 'InstanceLoader'],
      ['info', 'Dispatcher'],
    ]);
  });

  it('keeps the start-up chatter out of an info log', () => {
    const { lines, sut } = capture('info');
    sut.log('AppController {/}:', 'RoutesResolver');
    sut.log('Nest application successfully started', 'NestApplication');
    expect(lines).toEqual([]);
  });
});

describe('database errors in logs', () => {
  it('keep their type, code and stack frames, never their SQL, parameters or quoted values', () => {
    const lines: string[] = [];
    const logger = createLogger('info', new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) }));
    const error = Object.assign(new Error("Duplicate entry 'whsec_private' for key 'PRIMARY'"), {
      name: 'QueryFailedError',
      code: 'ER_DUP_ENTRY',
      query: 'INSERT INTO webhooks (id, secret_sealed) VALUES (?, ?)',
      parameters: ['wh_1', 'v1:sealed-secret'],
      driverError: { sql: 'INSERT INTO webhooks ...', sqlMessage: "Duplicate entry 'whsec_private'" },
    });
    logger.error({ err: error }, 'unhandled error');
    const [line] = lines;
    expect(line).not.toMatch(/INSERT|whsec_private|sealed-secret|wh_1/);
    expect(JSON.parse(line).err).toMatchObject({ type: 'Error', code: 'ER_DUP_ENTRY', message: "Duplicate entry '?' for key '?'", stack: expect.stringMatching(/^Error: Duplicate entry '\?' for key '\?'\n\s+at /) });
  });

  it('keep every field of other errors', () => {
    const lines: string[] = [];
    const logger = createLogger('info', new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) }));
    logger.error({ err: Object.assign(new Error("bad 'value'"), { status: 7 }) }, 'other');
    expect(JSON.parse(lines[0]).err).toMatchObject({ message: "bad 'value'", status: 7 });
  });
});

describe(redactUrl.name, () => {
  it.each([
    ['/hooks/abcDEF123?x=1', '/hooks/[redacted]?x=1'],
    ['/hooks/abcDEF123', '/hooks/[redacted]'],
    // not the route's exact form, but possibly a live token all the same
    ['http://localhost:4410/hooks/abcDEF123', 'http://localhost:4410/hooks/[redacted]'],
    ['//hooks/abcDEF123', '//hooks/[redacted]'],
    ['/hooks//abcDEF123#x', '/hooks//[redacted]#x'],
    ['/Hooks/abcDEF123/more', '/Hooks/[redacted]/more'],
    ['/h%6Foks/abcDEF123', '/hooks/[redacted]'],
    ['/v3/hooks/abc/hooks/def', '/v3/hooks/[redacted]/hooks/[redacted]'],
    ['/hooks', '/hooks'],
    // mistyped, the token may still be live
    ['/hook/abcDEF123', '/hook/[redacted]'],
    ['/hooks;/abcDEF123', '/hooks;/[redacted]'],
    ['/api/hooks.json/abcDEF123', '/api/hooks.json/abcDEF123'],
    ['/trigger/Qm9vdGhz_-0123456789abcdefghijklmnopqrstuvw', '/trigger/[redacted]'],
    // token-shaped runs anywhere: glued to other text, encoded slashes, any query value
    ['/hooks%2FQm9vdGhz_-0123456789abcdefghijklmnopqrstuvw', '/hooks/[redacted]'],
    // escapes decoded first: a token cannot hide behind them; a webhook secret is never logged either
    ['/hooks%2FshortTok', '/hooks/[redacted]'],
    ['/v3/Webhook?x=sk_Qm9vdGhz%5F-0123456789abcdefghijklmnopqrstuvw', '/v3/Webhook?x=[redacted]'],
    ['/x/%41%42%43Qm9vdGhz_-0123456789abcdefghijklmnopqrst', '/x/[redacted]'],
    ['/v3/Webhook?x=whsec_yt%2B%2BOfbZXa8lnPIiZSl986ZPLewt5YKsMGl7hdbN%2BH4%3D', '/v3/Webhook?x=[redacted]'],
    ['/x/caf%C3%A9/%E0%A4%A', '/x/café/%E0%A4%A'],
    ['/x/Qm9vdGhz_-0123456789abcdefghijklmnopqrstuvw.json', '/x/[redacted].json'],
    ['/x?a=1;u=/hooks/Qm9vdGhz_-0123456789abcdefghijklmnopqrstuvw', '/x?a=1;u=/hooks/[redacted]'],
    ['/x?q=sk_Qm9vdGhz_-0123456789abcdefghijklmnopqrstuvw', '/x?q=[redacted]'],
    ['/v3/Webhook/wh_01jd2x7q9m3k8p4r6t1v5w0y2z/deliveries', '/v3/Webhook/wh_01jd2x7q9m3k8p4r6t1v5w0y2z/deliveries'],
    ['/v2/webhooks/wh_1', '/v2/webhooks/wh_1'],
    ['/%E0%A4%A/x', '/%E0%A4%A/x'],
    ['/v3/Webhook?api-key=sk_live_secret', '/v3/Webhook?api-key=[redacted]'],
    ['/v3/Webhook?limit=5&API_KEY=sk_x&cursor=del_1', '/v3/Webhook?limit=5&API_KEY=[redacted]&cursor=del_1'],
    ['/v2/events?token=t1&access_token=t2#frag', '/v2/events?token=[redacted]&access_token=[redacted]#frag'],
    ['/v3/Webhook/wh_1/deliveries?cursor=del_01&limit=20', '/v3/Webhook/wh_1/deliveries?cursor=del_01&limit=20'],
    ['/v3/events?type=email.delivered&monkey=1', '/v3/events?type=email.delivered&monkey=1'],
  ])('%s is logged as %s', (url, logged) => expect(redactUrl(url)).toBe(logged));
});

describe(bufferedLogDestination.name, () => {
  it('writes info lines in blocks, within 100 ms, and a warning at once with what gathered before it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'log-'));
    const destination = bufferedLogDestination(openSync(join(dir, 'out.log'), 'a'));
    try {
      const logger = createLogger('info', destination);
      const written = () => readFileSync(join(dir, 'out.log'), 'utf8');
      logger.info('first');
      expect(written()).toBe('');
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(written()).toContain('"msg":"first"');
      logger.info('second');
      logger.warn('third');
      expect(written().split('\n').filter(Boolean).map((line) => JSON.parse(line).msg)).toEqual(['first', 'second', 'third']);
    } finally {
      destination.end();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
