import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * An answer written straight to a connection that Fastify never saw as a request (Node's parser
 * refused it, or a CONNECT), in the contract's shape, then the connection closed.
 */
export function answerOnSocketAndClose(socket: Duplex, status: number, error: { code: string; message: string }, requestId: string = randomUUID()): void {
  const body = JSON.stringify(error);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nX-Request-Id: ${requestId}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
