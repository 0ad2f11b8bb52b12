import * as dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isBlockedAddress } from '../../../kernel/src';
import { BlockedAddressError } from './blocked-address-error';

/** The shape of `dns.lookup` as `net.connect` calls it (always with an options object). */
export type DnsLookup = LookupFunction;

/**
 * A `lookup` for `net.connect` / `tls.connect` that resolves the name with `baseLookup`
 * (dns.lookup by default) and refuses to hand back any address the policy blocks. Because the
 * socket connects to exactly what lookup returns, the check applies to the address actually
 * connected to and a DNS answer that changes between checks (rebinding) cannot slip through.
 *
 * Two call forms exist:
 * - `{ all: false }` (classic): one address; refused if it is blocked.
 * - `{ all: true }` (Node's autoSelectFamily / happy eyeballs, the default on Node 20+): a list the
 *   socket may try in any order; refused if ANY entry is blocked, so the outcome never depends on
 *   which address wins the race or on the order of the DNS answer.
 */
export function createAddressGuardedLookup(
  isBlocked: (ip: string) => boolean = isBlockedAddress,
  baseLookup: DnsLookup = dns.lookup as unknown as DnsLookup,
): LookupFunction {
  return (hostname, options, callback) => {
    const all = options?.all === true;
    baseLookup(hostname, options ?? {}, (err, address, family) => {
      if (err) {
        callback(err, all ? [] : '', family);
        return;
      }
      if (Array.isArray(address)) {
        const blocked = address.find((entry) => isBlocked(entry.address));
        if (blocked) {
          callback(new BlockedAddressError(hostname, blocked.address), []);
          return;
        }
        callback(null, address);
        return;
      }
      if (isBlocked(address)) {
        callback(new BlockedAddressError(hostname, address), '', family);
        return;
      }
      callback(null, address, family);
    });
  };
}
