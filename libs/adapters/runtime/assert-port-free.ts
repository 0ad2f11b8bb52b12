import { createServer } from 'node:net';

/**
 * Fails, naming `variable`, when `port` cannot be bound. Called before the app is created: the app
 * starts taking work at init, which a process that cannot serve must never do.
 */
export async function assertPortFree(port: number, variable: string): Promise<void> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (error: NodeJS.ErrnoException) => reject(new Error(`${variable} ${port}: ${error.code === 'EADDRINUSE' ? 'already in use' : error.message}`)));
    probe.listen({ port, host: '0.0.0.0' }, () => probe.close(() => resolve()));
  });
}
