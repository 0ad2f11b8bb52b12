import { isIP, type LookupFunction } from 'node:net';
import { buildConnector } from 'undici';
import { isBlockedAddress } from '../../../kernel/src';
import { createAddressGuardedLookup } from './address-guarded-lookup';
import { BlockedAddressError } from './blocked-address-error';

export interface AddressGuardedConnectorOptions {
  /** TCP (+ TLS handshake) connect timeout. */
  connectTimeoutMs: number;
  isBlocked?: (ip: string) => boolean;
  /** Resolver used by the guarded lookup; dns.lookup by default (tests inject a fake). */
  baseLookup?: LookupFunction;
}

/**
 * An undici connector that never opens a socket to a blocked address:
 * 1. a literal IP host (which `net.connect` would not pass to lookup) is checked before connecting;
 * 2. a hostname is resolved through the guarded lookup, so the address handed to the socket is the
 *    checked one;
 * 3. once connected, the socket's `remoteAddress` is checked again (defence in depth: nothing is
 *    written on the socket before this passes).
 */
export function buildAddressGuardedConnector(options: AddressGuardedConnectorOptions): buildConnector.connector {
  const isBlocked = options.isBlocked ?? isBlockedAddress;
  const connect = buildConnector({
    timeout: options.connectTimeoutMs,
    lookup: createAddressGuardedLookup(isBlocked, options.baseLookup),
  });

  return (connectOptions, callback) => {
    const { hostname } = connectOptions;
    if (isIP(hostname) !== 0 && isBlocked(hostname)) {
      callback(new BlockedAddressError(hostname, hostname), null);
      return;
    }
    connect(connectOptions, (err, socket) => {
      if (err) {
        callback(err, null);
        return;
      }
      const remote = socket.remoteAddress;
      if (remote !== undefined && isBlocked(remote)) {
        socket.destroy();
        callback(new BlockedAddressError(hostname, remote), null);
        return;
      }
      callback(null, socket);
    });
  };
}
