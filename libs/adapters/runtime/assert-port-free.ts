import { createServer, Server } from 'node:net';

/** Listens on `port` (of `host`, or every address), or fails naming `variable` (`PORT 3000: already in use`). */
export async function listenNaming(server: Server, port: number, variable: string, host?: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(new Error(`${variable} ${port}: ${error.code === 'EADDRINUSE' ? 'already in use' : error.message}`)));
    server.listen({ port, host }, () => resolve());
  });
}

/**
 * Fails, naming `variable`, when `port` cannot be bound. Called before the app is created: the app
 * starts taking work at init, which a process that cannot serve must never do.
 */
export async function assertPortFree(port: number, variable: string): Promise<void> {
  const probe = createServer();
  // The address the API listens on (apps/api main.ts).
  await listenNaming(probe, port, variable, '0.0.0.0');
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}
