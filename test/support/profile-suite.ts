import { Receiver, Responder, startReceiver } from './receiver';
import { Profile, profileAvailable, startTestApp, TestApp } from './test-app';

/** An account as the specs use it: who it is and its API key. */
export interface TestAccount {
  id: number;
  apiKey: string;
}

/** The data of an `email.delivered` event. */
export const deliveredData = (idSending = 1001) => ({ email: 'jane@example.com', idSending, sendingType: 1, diagCode: '250 2.0.0 OK', deliveredAt: '2025-11-22T02:00:00.000Z' });

/**
 * What most e2e suites of one profile share: the app started with `env` and a local receiver,
 * both made in beforeAll and closed in afterAll, and the requests they send. Read `sut`,
 * `receiver` and `skip` inside tests only: beforeAll sets them.
 */
export interface ProfileSuite {
  readonly sut: TestApp;
  readonly receiver: Receiver;
  /** The profile's servers do not answer: every test returns at once. */
  readonly skip: boolean;
  get(account: TestAccount, path: string): ReturnType<ReturnType<TestApp['http']>['get']>;
  post(account: TestAccount, path: string, body?: object): ReturnType<ReturnType<TestApp['http']>['post']>;
  /** A POST with the internal token (`/internal/events`). */
  internal(path: string, body: object): ReturnType<ReturnType<TestApp['http']>['post']>;
}

export function profileSuite(profile: Profile, options: { env: Record<string, string>; responder?: Responder }): ProfileSuite {
  let sut: TestApp | undefined;
  let receiver: Receiver | undefined;
  let skip = false;
  beforeAll(async () => {
    skip = !(await profileAvailable(profile));
    if (skip) return;
    sut = await startTestApp(profile, { env: options.env });
    receiver = await startReceiver(options.responder);
  });
  afterAll(async () => {
    await receiver?.close();
    await sut?.close();
  });
  const app = () => started(sut, 'the app');
  return {
    get sut() {
      return app();
    },
    get receiver() {
      return started(receiver, 'the receiver');
    },
    get skip() {
      return skip;
    },
    get: (account, path) => app().http().get(path).set('api-key', account.apiKey),
    post: (account, path, body = {}) => app().http().post(path).set('api-key', account.apiKey).send(body),
    internal: (path, body) => app().http().post(path).set('authorization', `Bearer ${app().tokens.internal}`).send(body),
  };
}

function started<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is not started: read it inside a test`);
  return value;
}
