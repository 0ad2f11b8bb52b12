import type { Dispatcher } from 'undici';

/** What came back, read to its end: the final status, its Retry-After, and the body's first `limit` bytes as text. */
export interface CappedAnswer {
  status: number;
  retryAfter: string | undefined;
  body: string;
}

/**
 * One request through undici's dispatch API, keeping at most `limit` bytes of the answer. The rest
 * is read to its end and dropped: success needs the whole answer within the time limit (CONTRACT
 * §3), and a connection whose answer was read to the end stays open for the next call. The
 * dispatch API, rather than `request()`, because the answer never becomes a stream: `request()`
 * builds a Readable body, its promises and an AbortSignal for every call, twice the CPU of this on
 * a small answer.
 */
export class CappedPost implements Dispatcher.DispatchHandler {
  /** The final status once its headers came (1xx excluded), else null. */
  status: number | null = null;
  readonly answer: Promise<CappedAnswer>;
  private retryAfter: string | undefined;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  /** Whether the answer ran past `limit`: what is kept is a prefix. */
  private cut = false;
  private controller: Dispatcher.DispatchController | null = null;
  private abortReason: Error | null = null;
  private settled = false;
  private resolve!: (answer: CappedAnswer) => void;
  private reject!: (error: Error) => void;

  constructor(private readonly limit: number) {
    this.answer = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  /** Sends the request on `dispatcher`; `answer` settles with the outcome. */
  send(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions): this {
    try {
      dispatcher.dispatch(options, this);
    } catch (error) {
      this.fail(error as Error);
    }
    return this;
  }

  /** Gives up (the caller's time limit): the answer rejects with `reason` now, the request is aborted when it can be. */
  abort(reason: Error): void {
    this.fail(reason);
    if (this.controller) this.controller.abort(reason);
    else this.abortReason = reason;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.abortReason) controller.abort(this.abortReason);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return;
    this.status = statusCode;
    const retryAfter = headers['retry-after'];
    this.retryAfter = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled || this.cut) return;
    const room = this.limit - this.size;
    if (chunk.length > room) {
      this.cut = true;
      chunk = chunk.subarray(0, room);
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  onResponseEnd(): void {
    this.succeed();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.fail(error);
  }

  private succeed(): void {
    if (this.settled) return;
    this.settled = true;
    this.resolve({ status: this.status!, retryAfter: this.retryAfter, body: decodeUtf8Prefix(Buffer.concat(this.chunks, this.size), this.cut) });
  }

  private fail(error: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(error);
  }
}

/**
 * Decodes UTF-8; when `cut` (the bytes are a prefix of a longer body), an incomplete character at
 * the end is dropped rather than turned into U+FFFD, so the text ends on a character boundary.
 */
export function decodeUtf8Prefix(bytes: Uint8Array, cut: boolean): string {
  if (!cut) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes, { stream: true });
}
