import type { LookupAddress } from 'node:dns';
import * as net from 'node:net';
import type { AddressInfo, LookupFunction } from 'node:net';
import { buildAddressGuardedConnector } from './address-guarded-connector';
import { createAddressGuardedLookup } from './address-guarded-lookup';
import { BlockedAddressError } from './blocked-address-error';

/** A resolver answering from a table, in both forms `net.connect` uses. */
function fakeDns(table: Record<string, string[]>): LookupFunction & { calls: number } {
  const fn = ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    fn.calls++;
    const addresses = table[hostname];
    if (!addresses) {
      const err = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
        code: 'ENOTFOUND',
        syscall: 'getaddrinfo',
      });
      setImmediate(() => callback(err));
      return;
    }
    const entries: LookupAddress[] = addresses.map((address) => ({ address, family: net.isIP(address) }));
    setImmediate(() =>
      options.all ? callback(null, entries) : callback(null, entries[0].address, entries[0].family),
    );
  }) as unknown as LookupFunction & { calls: number };
  fn.calls = 0;
  return fn;
}

function lookupOnce(
  lookup: LookupFunction,
  hostname: string,
  all: boolean,
): Promise<{ err: NodeJS.ErrnoException | null; address: string | LookupAddress[] }> {
  return new Promise((resolve) => lookup(hostname, { all }, (err, address) => resolve({ err, address })));
}

describe('createAddressGuardedLookup', () => {
  const dns = fakeDns({
    'public.example': ['93.184.216.34'],
    'dual.example': ['2606:4700::1111', '93.184.216.34'],
    'private.example': ['10.0.0.5'],
    'metadata.example': ['169.254.169.254'],
    'mixed.example': ['93.184.216.34', '127.0.0.1'],
    'mixed6.example': ['2606:4700::1111', 'fd00::1'],
    'mapped.example': ['::ffff:127.0.0.1'],
  });
  const lookup = createAddressGuardedLookup(undefined, dns);

  it.each([false, true])('passes public answers through (all: %s)', async (all) => {
    const { err, address } = await lookupOnce(lookup, 'public.example', all);
    expect(err).toBeNull();
    expect(address).toEqual(all ? [{ address: '93.184.216.34', family: 4 }] : '93.184.216.34');
  });

  it('passes a dual-stack public answer through whole (all: true)', async () => {
    const { err, address } = await lookupOnce(lookup, 'dual.example', true);
    expect(err).toBeNull();
    expect(address).toHaveLength(2);
  });

  it.each([
    ['private.example', false],
    ['private.example', true],
    ['metadata.example', false],
    ['metadata.example', true],
    ['mapped.example', false],
    // one bad entry among good ones: happy eyeballs could pick it, so the whole answer is refused
    ['mixed.example', true],
    ['mixed6.example', true],
  ])('refuses %s (all: %s)', async (hostname, all) => {
    const { err } = await lookupOnce(lookup, hostname as string, all as boolean);
    expect(err).toBeInstanceOf(BlockedAddressError);
    expect(err?.code).toBe('ERR_BLOCKED_ADDRESS');
    expect(err?.message).toContain(hostname);
  });

  it('passes resolver errors through', async () => {
    const { err } = await lookupOnce(lookup, 'nowhere.example', true);
    expect(err?.code).toBe('ENOTFOUND');
  });

  it('checks every resolution (a rebinding answer is caught on the next connect)', async () => {
    const table: Record<string, string[]> = { 'rebind.example': ['93.184.216.34'] };
    const rebinding = createAddressGuardedLookup(undefined, fakeDns(table));
    expect((await lookupOnce(rebinding, 'rebind.example', true)).err).toBeNull();
    table['rebind.example'] = ['127.0.0.1'];
    expect((await lookupOnce(rebinding, 'rebind.example', true)).err).toBeInstanceOf(BlockedAddressError);
  });
});

describe('buildAddressGuardedConnector', () => {
  let server: net.Server;
  let port: number;
  let connections: number;
  let received: Buffer[];

  beforeEach(async () => {
    connections = 0;
    received = [];
    server = net.createServer((socket) => {
      connections++;
      socket.on('data', (d) => received.push(d));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    port = (server.address() as AddressInfo).port;
  });

  afterEach(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  function connect(
    connector: ReturnType<typeof buildAddressGuardedConnector>,
    hostname: string,
  ): Promise<{ err: Error | null; socket: net.Socket | null }> {
    return new Promise((resolve) =>
      connector({ hostname, host: `${hostname}:${port}`, protocol: 'http:', port: String(port) }, (err, socket) =>
        resolve({ err, socket }),
      ),
    );
  }

  it('refuses a literal blocked IP before opening a socket', async () => {
    const dns = fakeDns({});
    const { err } = await connect(buildAddressGuardedConnector({ connectTimeoutMs: 1000, baseLookup: dns }), '127.0.0.1');
    expect(err).toBeInstanceOf(BlockedAddressError);
    expect(dns.calls).toBe(0);
    await new Promise((r) => setTimeout(r, 30));
    expect(connections).toBe(0);
  });

  it('refuses a name whose answer is blocked before opening a socket', async () => {
    const dns = fakeDns({ 'rebind.example': ['127.0.0.1'] });
    const { err } = await connect(
      buildAddressGuardedConnector({ connectTimeoutMs: 1000, baseLookup: dns }),
      'rebind.example',
    );
    expect(err).toBeInstanceOf(BlockedAddressError);
    expect(dns.calls).toBe(1);
    await new Promise((r) => setTimeout(r, 30));
    expect(connections).toBe(0);
  });

  it('connects to exactly the address the guarded lookup returned', async () => {
    const dns = fakeDns({ 'ok.example': ['127.0.0.1'] });
    const { err, socket } = await connect(
      buildAddressGuardedConnector({ connectTimeoutMs: 1000, baseLookup: dns, isBlocked: () => false }),
      'ok.example',
    );
    expect(err).toBeNull();
    expect(socket?.remoteAddress).toBe('127.0.0.1');
    socket?.destroy();
  });

  it('re-checks the connected remote address and closes the socket before anything is written', async () => {
    const dns = fakeDns({ 'ok.example': ['127.0.0.1'] });
    let checks = 0;
    // lets the lookup through, then refuses the connected address: the post-connect check alone
    const isBlocked = () => checks++ > 0;
    const { err, socket } = await connect(
      buildAddressGuardedConnector({ connectTimeoutMs: 1000, baseLookup: dns, isBlocked }),
      'ok.example',
    );
    expect(err).toBeInstanceOf(BlockedAddressError);
    expect(socket).toBeNull();
    await new Promise((r) => setTimeout(r, 30));
    expect(received).toHaveLength(0);
  });
});
