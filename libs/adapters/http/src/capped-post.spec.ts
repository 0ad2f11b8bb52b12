import type { Dispatcher } from 'undici';
import { CappedPost, decodeUtf8Prefix } from './capped-post';

describe('decodeUtf8Prefix', () => {
  const euro = Buffer.from('€'); // e2 82 ac

  it('decodes a whole body as is', () => {
    expect(decodeUtf8Prefix(Buffer.from('héllo'), false)).toBe('héllo');
  });

  it.each([1, 2])('drops a character cut after %i of its bytes when the body was cut', (n) => {
    const bytes = Buffer.concat([Buffer.from('ab'), euro.subarray(0, n)]);
    expect(decodeUtf8Prefix(bytes, true)).toBe('ab');
  });

  it('keeps a complete final character when the body was cut', () => {
    expect(decodeUtf8Prefix(Buffer.concat([Buffer.from('ab'), euro]), true)).toBe('ab€');
  });

  it('drops a cut 4-byte character', () => {
    const rocket = Buffer.from('🚀');
    expect(decodeUtf8Prefix(Buffer.concat([Buffer.from('x'), rocket.subarray(0, 3)]), true)).toBe('x');
  });

  it('keeps a byte order mark', () => {
    expect(decodeUtf8Prefix(Buffer.from('\uFEFFok'), false)).toBe('\uFEFFok');
  });
});

/**
 * The handler's own rules, driven as undici drives it (the real transport is tested against real
 * servers in undici-outbound-http.spec.ts).
 */
describe('CappedPost', () => {
  const controller = () => {
    const state = { aborted: false, paused: false, reason: null as Error | null };
    const abort = jest.fn((reason: Error) => void Object.assign(state, { aborted: true, reason }));
    return Object.assign(state, { abort, pause: jest.fn(), resume: jest.fn() }) as Dispatcher.DispatchController & { abort: typeof abort };
  };
  const sent = (limit: number, drive: (post: CappedPost, c: ReturnType<typeof controller>) => void) => {
    const c = controller();
    const post = new CappedPost(limit).send({ dispatch: (_options: unknown, handler: CappedPost) => (handler.onRequestStart(c), drive(handler, c), true) } as unknown as Dispatcher, { path: '/', method: 'POST' });
    return { post, c };
  };

  it('answers the final status, its Retry-After and the whole body, skipping a 1xx', async () => {
    const { post, c } = sent(10, (h, c) => {
      h.onResponseStart(c, 100, {});
      h.onResponseStart(c, 503, { 'retry-after': '7' });
      h.onResponseData(c, Buffer.from('ab'));
      h.onResponseData(c, Buffer.from('cd'));
      h.onResponseEnd();
    });
    await expect(post.answer).resolves.toEqual({ status: 503, retryAfter: '7', body: 'abcd' });
    expect(c.abort).not.toHaveBeenCalled();
  });

  it('keeps the first bytes up to the limit and answers once the rest has been read to its end', async () => {
    let answered = false;
    let answeredBeforeTheEnd = false;
    const { post, c } = sent(3000, (h, c) => {
      h.onResponseStart(c, 200, {});
      for (let i = 0; i < 5; i++) h.onResponseData(c, Buffer.alloc(1024, 'z'));
      void h.answer.then(() => (answered = true));
      setImmediate(() => {
        answeredBeforeTheEnd = answered;
        h.onResponseEnd();
      });
    });
    await expect(post.answer).resolves.toEqual({ status: 200, retryAfter: undefined, body: 'z'.repeat(3000) });
    expect(answeredBeforeTheEnd).toBe(false);
    expect(c.abort).not.toHaveBeenCalled();
  });

  it('past the limit, an answer whose end never comes is no answer: the transport error', async () => {
    const { post } = sent(3000, (h, c) => {
      h.onResponseStart(c, 200, {});
      for (let i = 0; i < 5; i++) h.onResponseData(c, Buffer.alloc(1024, 'z'));
      h.onResponseError(c, Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    });
    await expect(post.answer).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
  });

  it('fails with the transport error, the status it had kept', async () => {
    const { post } = sent(10, (h, c) => {
      h.onResponseStart(c, 200, {});
      h.onResponseData(c, Buffer.from('partial'));
      h.onResponseError(c, Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    });
    await expect(post.answer).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
    expect(post.status).toBe(200);
  });

  it('given up before the request started: fails at once and aborts the request when it starts', async () => {
    const post = new CappedPost(10);
    const reason = new Error('time limit');
    post.abort(reason);
    await expect(post.answer).rejects.toBe(reason);
    const c = controller();
    post.onRequestStart(c);
    expect(c.abort).toHaveBeenCalledWith(reason);
  });

  it('fails when the dispatcher throws', async () => {
    const post = new CappedPost(10).send({ dispatch: () => { throw new Error('closed'); } } as unknown as Dispatcher, { path: '/', method: 'POST' });
    await expect(post.answer).rejects.toThrow('closed');
  });

  it('answers an empty body', async () => {
    const { post } = sent(10, (h, c) => {
      h.onResponseStart(c, 204, {});
      h.onResponseEnd();
    });
    await expect(post.answer).resolves.toEqual({ status: 204, retryAfter: undefined, body: '' });
  });
});
