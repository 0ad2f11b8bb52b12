import type { ChildProcess } from 'node:child_process';

/**
 * Request/answer over a child's IPC channel: the orchestrator calls `op` with an argument, the
 * child answers with a result or an error message. Harness children exit when the channel closes,
 * so they never outlive the orchestrator.
 */
interface Call {
  id: number;
  op: string;
  arg: unknown;
}
interface Answer {
  id: number;
  result?: unknown;
  error?: string;
}

export function serve(handlers: Record<string, (arg: any) => unknown>): void {
  process.on('message', (message: Call) => {
    const handler = handlers[message.op];
    Promise.resolve()
      .then(() => {
        if (!handler) throw new Error(`unknown op ${message.op}`);
        return handler(message.arg);
      })
      .then(
        (result) => process.send!({ id: message.id, result } satisfies Answer),
        (error: unknown) => process.send!({ id: message.id, error: error instanceof Error ? error.stack ?? error.message : String(error) } satisfies Answer),
      );
  });
  process.on('disconnect', () => process.exit(0));
}

let nextId = 1;

export function call<T>(child: ChildProcess, op: string, arg: unknown = null): Promise<T> {
  const id = nextId++;
  return new Promise<T>((resolve, reject) => {
    const onMessage = (message: Answer) => {
      if (message.id !== id) return;
      cleanUp();
      if (message.error !== undefined) reject(new Error(`${op} failed in the child: ${message.error}`));
      else resolve(message.result as T);
    };
    const onExit = (code: number | null, signal: string | null) => {
      cleanUp();
      reject(new Error(`${op}: the child exited (${signal ?? code}) before answering`));
    };
    const cleanUp = () => {
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.send({ id, op, arg } satisfies Call);
  });
}
