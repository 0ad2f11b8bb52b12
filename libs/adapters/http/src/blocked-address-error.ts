/**
 * Raised by the address guard (lookup or connector) when a delivery would connect to an address
 * the policy refuses. The code is what `classifyTransportError` recognises as `blocked_address`.
 */
export class BlockedAddressError extends Error {
  readonly code = 'ERR_BLOCKED_ADDRESS';

  constructor(
    readonly hostname: string,
    readonly address: string,
  ) {
    super(
      hostname === address
        ? `refused to connect to ${address}: private, loopback, link-local or reserved address`
        : `refused to connect to ${hostname}: it resolves to ${address}, a private, loopback, link-local or reserved address`,
    );
    this.name = 'BlockedAddressError';
  }
}
