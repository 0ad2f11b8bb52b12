import { createConnection } from 'mysql2/promise';
import { AddressInfo, connect, Socket } from 'node:net';
import { eventually } from '../support/eventually';
import { deliveredData } from '../support/profile-suite';
import { PROFILES, profileAvailable, startTestApp, TestApp } from '../support/test-app';
import { sleep } from '../support/waiting';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Every HTTP/1.1 answer in `raw`, in order (each with a Content-Length, as the API sends them). */
function answersIn(raw: string): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let rest = raw;
  while (rest.startsWith('HTTP/1.1 ')) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) break;
    const [statusLine, ...lines] = rest.slice(0, headEnd).split('\r\n');
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    const length = Number(headers['content-length']);
    answers.push({ status: Number(statusLine.split(' ')[1]), headers, body: rest.slice(headEnd + 4, headEnd + 4 + length) });
    rest = rest.slice(headEnd + 4 + length);
  }
  return answers;
}

/** A raw keep-alive connection to the app, and everything it received until it closed. */
async function rawConnection(sut: TestApp) {
  await sut.app.listen(0, '127.0.0.1');
  const { port } = sut.app.getHttpServer().address() as AddressInfo;
  const socket: Socket = connect(port, '127.0.0.1');
  let raw = '';
  socket.on('data', (chunk) => (raw += chunk.toString('utf8')));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  const event = (accountId: number) => {
    const body = JSON.stringify({ accountId, type: 'email.delivered', data: deliveredData() });
    return `POST /internal/events HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${sut.tokens.internal}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  };
  return { socket, closed, event, answers: () => answersIn(raw) };
}

const isRefusal = (answer: RawAnswer) =>
  answer.status === 503 &&
  answer.headers['retry-after'] === '1' &&
  answer.headers.connection === 'close' &&
  JSON.stringify(Object.keys(JSON.parse(answer.body))) === '["code","message"]' &&
  JSON.parse(answer.body).code === 'unavailable';

/**
 * SIGTERM as a client sees it (main.ts: Nest's shutdown hooks stop the workers, then Fastify closes):
 * requests in flight are answered and their connection closed with the answer; a request that
 * arrives on an open connection afterwards is refused in the contract's shape, never with Fastify's
 * own `{error, statusCode}` body.
 */
describe.each(PROFILES)('shutting down (%s)', (profile) => {
  it('answers what is in flight and closes busy keep-alive connections without waiting for their timeout', async () => {
    if (!(await profileAvailable(profile))) return;
    const sut = await startTestApp(profile);
    const account = await sut.createAccount();
    const connection = await rawConnection(sut);
    const firstAnswer = new Promise<void>((resolve) => connection.socket.once('data', () => resolve()));
    // Pipelined: Node hands the app each request as it parses it, so most are in flight at close.
    connection.socket.write(connection.event(account.id).repeat(300));
    await firstAnswer;
    const startedAt = Date.now();
    await sut.close();
    await connection.closed;

    // Fastify's keep-alive timeout is 72 s: a connection left open would hold the close that long.
    expect(Date.now() - startedAt).toBeLessThan(10_000);
    const answers = connection.answers();
    expect(answers.length).toBeGreaterThan(0);
    for (const answer of answers) expect(answer.status === 202 || isRefusal(answer)).toBe(true);
  }, 60_000);

  /**
   * One request answered over a keep-alive connection, then the close begins and `whileClosing`
   * writes the next one: it must get the refusal, never a reset.
   */
  const nextRequestWhileClosing = async (whileClosing: (writeNext: () => void) => Promise<void>) => {
    const sut = await startTestApp(profile);
    const account = await sut.createAccount();
    const connection = await rawConnection(sut);
    const firstAnswer = new Promise<void>((resolve) => connection.socket.once('data', () => resolve()));
    connection.socket.write(connection.event(account.id));
    await firstAnswer;
    const httpClosed = sut.app.getHttpAdapter().close();
    await whileClosing(() => connection.socket.write(connection.event(account.id)));
    await httpClosed;
    await connection.closed;
    await sut.close();
    const [first, second] = connection.answers();
    expect(first.status).toBe(202);
    expect(second && isRefusal(second)).toBe(true);
  };

  it('answers a request already on its way over a keep-alive connection when the close begins, rather than resetting it', async () => {
    if (!(await profileAvailable(profile))) return;
    // Between two requests of a busy client the connection looks idle to Node: the next request is
    // written while the close begins, and is still unread in the socket when the server would
    // close its idle connections.
    await nextRequestWhileClosing(async (writeNext) => writeNext());
  }, 60_000);

  it('refuses a request that arrived while the event loop stalled after the close began, rather than resetting it', async () => {
    if (!(await profileAvailable(profile))) return;
    await nextRequestWhileClosing(async (writeNext) => {
      await sleep(5);
      await new Promise((resolve) => setImmediate(resolve));
      // A loaded machine (CI) can stall the loop longer than the drain's quiet period. When it
      // wakes, timers run before the poll phase reads the request that came meanwhile: the drain
      // must not take the connection for idle then.
      writeNext();
      const stalledUntil = performance.now() + 400;
      while (performance.now() < stalledUntil);
    });
  }, 60_000);

  if (profile === 'mysql-nats') {
    it('refuses a request arriving on an open connection while it closes: 503 unavailable, Retry-After, Connection: close', async () => {
      if (!(await profileAvailable(profile))) return;
      const sut = await startTestApp(profile);
      const account = await sut.createAccount();
      const connection = await rawConnection(sut);
      // Another session holds the events table: the first request waits in its commit, in flight.
      const blocker = await createConnection(sut.config.storage.databaseUrl!);
      try {
        await blocker.query('LOCK TABLES events WRITE');
        connection.socket.write(connection.event(account.id));
        await sleep(200);
        // What Nest does once the workers stopped (the retention job, waiting on the same lock,
        // would hold sut.close() until the unlock).
        const httpClosed = sut.app.getHttpAdapter().close();
        await eventually(() => expect(sut.app.getHttpServer().listening).toBe(false));
        connection.socket.write(connection.event(account.id));
        await sleep(300);
        await blocker.query('UNLOCK TABLES');
        await httpClosed;
        await connection.closed;
      } finally {
        await blocker.end();
        await sut.close();
      }
      // Node answers in order: the refusal waits for the answer of the request before it.
      const [inFlight, late] = connection.answers();
      expect(inFlight.status).toBe(202);
      expect(inFlight.headers.connection).toBe('keep-alive');
      expect(late.status).toBe(503);
      expect(isRefusal(late)).toBe(true);
      expect(JSON.parse(late.body).message).toMatch(/shutting down/);
      expect(connection.answers()).toHaveLength(2);
    }, 60_000);
  }
});
