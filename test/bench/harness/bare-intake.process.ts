import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';

/**
 * Baseline (b), the intake ceiling: a bare node:http server, a process of its own, that reads the
 * body, parses it as JSON and answers 202 with an id, storing nothing. Bad JSON gets a 400.
 */
const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    try {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      response.writeHead(400, { 'content-type': 'application/json' }).end('{"code":"invalid_json","message":"not JSON"}');
      return;
    }
    response.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ id: `evt_${randomUUID()}` }));
  });
});
server.keepAliveTimeout = 65_000;
process.on('disconnect', () => process.exit(0));
server.listen(0, '127.0.0.1', () => process.send!({ ready: (server.address() as AddressInfo).port }));
