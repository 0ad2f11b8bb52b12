import * as ipaddr from 'ipaddr.js';
import { isWellFormedText, NOT_TEXT } from './text';

/**
 * Which network addresses a webhook may be delivered to (CONTRACT §2: loopback, private,
 * link-local, unique-local and cloud-metadata ranges are refused unless ALLOW_PRIVATE_TARGETS=true).
 *
 * Pure: no DNS, no sockets. The create-time check (`checkTargetUrl`) looks at literal IPs and
 * `localhost` names only; the delivery-time guard in the HTTP adapter applies `isBlockedAddress`
 * to every address a hostname resolves to.
 */

export const TARGET_URL_MAX_LENGTH = 2048;

/**
 * Ranges ipaddr.js names that are fine to call. Everything else it knows (loopback, private,
 * linkLocal, uniqueLocal, multicast, reserved, ...) is refused: an allow-list fails closed if
 * ipaddr.js learns a new special range.
 */
const ALLOWED_V4_RANGES: ReadonlySet<string> = new Set(['unicast', 'as112', 'amt']);
const ALLOWED_V6_RANGES: ReadonlySet<string> = new Set(['unicast', 'as112v6', 'amt']);

/** Cloud metadata endpoints, refused by name even where a broader rule would already catch them. */
const METADATA_ADDRESSES: readonly string[] = [
  '169.254.169.254', // AWS, GCP, Azure, OpenStack, DigitalOcean...
  '169.254.170.2', // AWS ECS task metadata
  '100.100.100.200', // Alibaba Cloud
  'fd00:ec2::254', // AWS IMDS over IPv6
];
const METADATA_PARSED = METADATA_ADDRESSES.map((a) => ipaddr.parse(a));

const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');

/**
 * True when `ip` (a textual IPv4 or IPv6 address, IPv6 without brackets, zone id allowed) must not
 * be called. Anything that is not a valid IP address is treated as blocked (fail closed).
 */
export function isBlockedAddress(ip: string): boolean {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    const text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
    address = ipaddr.parse(text);
  } catch {
    return true;
  }
  return address.kind() === 'ipv4' ? isBlockedV4(address as ipaddr.IPv4) : isBlockedV6(address as ipaddr.IPv6);
}

function isMetadata(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  return METADATA_PARSED.some(
    (m) => m.kind() === address.kind() && m.toNormalizedString() === address.toNormalizedString(),
  );
}

function isBlockedV4(address: ipaddr.IPv4): boolean {
  if (isMetadata(address)) return true;
  return !ALLOWED_V4_RANGES.has(address.range());
}

function isBlockedV6(address: ipaddr.IPv6): boolean {
  if (isMetadata(address)) return true;
  const p = address.parts;

  // IPv4-compatible ::a.b.c.d (deprecated, but some stacks still route it to the IPv4 address).
  // :: and ::1 are also in this /96 and are caught by range() below through the embedded check.
  if (p[0] === 0 && p[1] === 0 && p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0) {
    if (address.range() !== 'unicast') return true; // :: (unspecified), ::1 (loopback)
    return isBlockedV4(embeddedV4(p[6], p[7]));
  }

  const range = address.range();
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d (IPv4-translated)
      return isBlockedV4(embeddedV4(p[6], p[7]));
    case 'rfc6052': // NAT64: the well-known /96 embeds the IPv4 address; 64:ff9b:1::/48 is local-use
      return address.match(NAT64_WELL_KNOWN) ? isBlockedV4(embeddedV4(p[6], p[7])) : true;
    case '6to4': // 2002:AABB:CCDD::/48 embeds a.b.c.d
      return isBlockedV4(embeddedV4(p[1], p[2]));
    default:
      // teredo, uniqueLocal, linkLocal, multicast, reserved, discard, site-local... are refused.
      return !ALLOWED_V6_RANGES.has(range);
  }
}

function embeddedV4(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

const UNFORGIVEN = /[\s\u0000-\u001f\u007f\\]/;

export type TargetUrlCheck =
  | { ok: true; url: URL }
  | { ok: false; reason: 'invalid_url' | 'blocked_address'; message: string };

/**
 * The create-time rule for a webhook or target URL: absolute http(s), at most 2048 characters,
 * a host (a DNS name no longer than DNS allows), no credentials; literal IP hosts in blocked ranges and `localhost` / `*.localhost`
 * refused unless `allowPrivate`. Hostnames are not resolved here (the delivery-time guard does it).
 */
export function checkTargetUrl(url: string, options: { allowPrivate: boolean }): TargetUrlCheck {
  if (typeof url !== 'string' || url.length === 0) {
    return invalid('url must be a non-empty string');
  }
  if (url.length > TARGET_URL_MAX_LENGTH) {
    return invalid(`url must be at most ${TARGET_URL_MAX_LENGTH} characters`);
  }
  // WHATWG parsing forgives these (it trims spaces, drops tabs and newlines, reads `\` as `/` and
  // `http:host` as `http://host`), so the URL called would not be the one shown: refused instead.
  if (UNFORGIVEN.test(url)) {
    return invalid('url must not contain spaces, control characters or backslashes (percent-encode them)');
  }
  if (!isWellFormedText(url)) return invalid(NOT_TEXT('url'));
  if (!/^https?:\/\//i.test(url)) {
    return invalid('url must be an absolute http or https URL starting with http:// or https://');
  }
  // `http:///host` and `http:////host` parse as `http://host`: the host must follow the two slashes.
  if (/^https?:\/\/\//i.test(url)) {
    return invalid('url must have its host right after http:// or https://');
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return invalid('url must be an absolute http or https URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return invalid('url must use http or https');
  }
  if (parsed.hostname === '') {
    return invalid('url must have a host');
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return invalid('url must not contain credentials');
  }
  if (parsed.port === '0') {
    return invalid('url must not use port 0');
  }
  const host = hostCategory(parsed.hostname);
  const nameProblem = host.kind === 'name' ? hostNameProblem(host.name) : null;
  if (nameProblem) return invalid(nameProblem);
  if (!options.allowPrivate) {
    if (host.kind === 'ip' && isBlockedAddress(host.ip)) {
      return blocked(`url host ${parsed.hostname} is in a private, loopback, link-local or reserved range`);
    }
    if (host.kind === 'name' && isLocalhostName(host.name)) {
      return blocked(`url host ${parsed.hostname} is a loopback name`);
    }
  }
  return { ok: true, url: parsed };
}

/**
 * WHATWG URL has already normalised odd IPv4 spellings (`2130706433`, `0x7f.1`, `127.1`,
 * a trailing dot) to dotted decimal and wrapped IPv6 in brackets, so these two shapes are the
 * only literal-IP forms left to recognise.
 */
function hostCategory(hostname: string): { kind: 'ip'; ip: string } | { kind: 'name'; name: string } {
  if (hostname.startsWith('[') && hostname.endsWith(']')) {
    return { kind: 'ip', ip: hostname.slice(1, -1) };
  }
  if (ipaddr.IPv4.isValidFourPartDecimal(hostname)) {
    return { kind: 'ip', ip: hostname };
  }
  return { kind: 'name', name: hostname };
}

function isLocalhostName(name: string): boolean {
  const n = name.toLowerCase().replace(/\.+$/, '');
  return n === 'localhost' || n.endsWith('.localhost');
}

function invalid(message: string): TargetUrlCheck {
  return { ok: false, reason: 'invalid_url', message };
}

function blocked(message: string): TargetUrlCheck {
  return { ok: false, reason: 'blocked_address', message };
}

/**
 * A host name DNS could never resolve: over 253 characters, a label (between dots) over 63
 * (RFC 1035 §2.3.4, in the ASCII form the URL parser gives, punycode included), or an empty one
 * (`a..example`, `.example`; one trailing dot is the root's and fine). Every call to it
 * would fail, so it is refused when the URL is stored.
 */
function hostNameProblem(hostname: string): string | null {
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  if (name.length > 253) return `url host must be at most 253 characters (got ${name.length})`;
  const labels = name.split('.');
  if (labels.some((label) => label.length > 63)) return 'url host must not have a label (a part between dots) longer than 63 characters';
  if (labels.some((label) => label === '')) return 'url host must not have an empty label (a leading dot, or two dots in a row)';
  return null;
}
