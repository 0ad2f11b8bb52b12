import { checkTargetUrl, isBlockedAddress, TARGET_URL_MAX_LENGTH } from './address-policy';

describe('isBlockedAddress', () => {
  const blocked: Array<[string, string]> = [
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback /8 end'],
    ['::1', 'IPv6 loopback'],
    ['10.0.0.1', 'RFC 1918 10/8'],
    ['10.255.255.255', 'RFC 1918 10/8 end'],
    ['172.16.0.1', 'RFC 1918 172.16/12 start'],
    ['172.31.255.254', 'RFC 1918 172.16/12 end'],
    ['192.168.1.1', 'RFC 1918 192.168/16'],
    ['100.64.0.1', 'CGNAT 100.64/10 start'],
    ['100.127.255.254', 'CGNAT 100.64/10 end'],
    ['169.254.0.1', 'IPv4 link-local'],
    ['169.254.169.254', 'cloud metadata'],
    ['169.254.170.2', 'ECS task metadata'],
    ['100.100.100.200', 'Alibaba metadata'],
    ['fd00:ec2::254', 'AWS IMDS IPv6'],
    ['fe80::1', 'IPv6 link-local'],
    ['fe80::1%eth0', 'IPv6 link-local with zone id'],
    ['febf:ffff::1', 'IPv6 link-local /10 end'],
    ['fc00::1', 'unique-local fc00::/7'],
    ['fd12:3456:789a::1', 'unique-local fd00::/8'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex form'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
    ['::ffff:0:127.0.0.1', 'IPv4-translated loopback'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['::10.1.2.3', 'IPv4-compatible private'],
    ['64:ff9b::7f00:1', 'NAT64 of loopback'],
    ['64:ff9b::a00:1', 'NAT64 of 10.0.0.1'],
    ['64:ff9b:1::1', 'NAT64 local-use /48'],
    ['2002:7f00:1::1', '6to4 of loopback'],
    ['2002:c0a8:101::1', '6to4 of 192.168.1.1'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'this network 0/8'],
    ['::', 'IPv6 unspecified'],
    ['224.0.0.1', 'multicast 224/4'],
    ['239.255.255.250', 'multicast (SSDP)'],
    ['ff02::1', 'IPv6 multicast'],
    ['ff05::1:3', 'IPv6 multicast site'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved 240/4'],
    ['192.0.2.1', 'TEST-NET-1'],
    ['198.18.0.1', 'benchmarking'],
    ['2001:db8::1', 'IPv6 documentation'],
    ['fec0::1', 'deprecated site-local'],
    ['100::1', 'discard prefix'],
    ['not-an-ip', 'garbage fails closed'],
    ['', 'empty fails closed'],
    ['[::1]', 'bracketed IPv6 loopback'],
  ];

  it.each(blocked)('blocks %s (%s)', (ip) => {
    expect(isBlockedAddress(ip)).toBe(true);
  });

  const allowed: Array<[string, string]> = [
    ['93.184.216.34', 'public IPv4'],
    ['8.8.8.8', 'public resolver'],
    ['1.1.1.1', 'public resolver'],
    ['172.15.255.255', 'just below 172.16/12'],
    ['172.32.0.1', 'just above 172.16/12'],
    ['100.63.255.255', 'just below CGNAT'],
    ['100.128.0.1', 'just above CGNAT'],
    ['169.253.255.255', 'just below link-local'],
    ['11.0.0.1', 'just above 10/8'],
    ['2606:4700::1111', 'public IPv6'],
    ['2a00:1450:4001:82b::200e', 'public IPv6'],
    ['::ffff:93.184.216.34', 'IPv4-mapped public'],
    ['64:ff9b::5db8:d822', 'NAT64 of a public address'],
    ['2002:5db8:d822::1', '6to4 of a public address'],
    ['[2606:4700::1111]', 'bracketed public IPv6'],
  ];

  it.each(allowed)('allows %s (%s)', (ip) => {
    expect(isBlockedAddress(ip)).toBe(false);
  });
});

describe('checkTargetUrl', () => {
  const strict = { allowPrivate: false };
  const lax = { allowPrivate: true };

  const accepted: string[] = [
    'https://example.com/webhooks',
    'http://example.com:8080/hook?x=1#frag',
    'https://93.184.216.34/hook',
    'https://[2606:4700::1111]/hook',
    'https://xn--bcher-kva.example/hook',
    'https://localhost.example.com/hook',
    'https://notlocalhost/hook',
    'HTTPS://example.com/Upper-Case-Scheme',
    'https://example.com/caf%C3%A9?q=a%20b',
    'https://bücher.example/ü',
    `https://${'a'.repeat(63)}.example/longest-label`,
    `https://${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}./253-characters-and-a-root-dot`,
  ];

  it.each(accepted)('accepts %s', (url) => {
    const result = checkTargetUrl(url, strict);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.url).toBeInstanceOf(URL);
  });

  const invalid: Array<[string, string]> = [
    ['', 'empty'],
    ['example.com/hook', 'not absolute'],
    ['/relative/path', 'relative'],
    ['ftp://example.com/file', 'ftp scheme'],
    ['file:///etc/passwd', 'file scheme'],
    ['javascript:alert(1)', 'javascript scheme'],
    ['ws://example.com/', 'websocket scheme'],
    ['http://', 'no host'],
    ['http://user:pass@example.com/', 'credentials'],
    ['https://user@example.com/', 'username only'],
    ['https://:pass@example.com/', 'password only'],
    ['http://1.1.1.1.1/', 'unparseable host'],
    [`https://${'a'.repeat(64)}.example/`, 'a label of 64 characters'],
    ['https://a..example.com/', 'an empty label'],
    ['https://.example.com/', 'a leading dot'],
    ['https://example.com../', 'two trailing dots'],
    ['https://./', 'only the root'],
    [`https://${Array.from({ length: 5 }, () => 'c'.repeat(50)).join('.')}.com/`, 'a host of 259 characters'],
    ['http://exa mple.com/', 'space in host'],
    [' http://example.com/in', 'leading space (WHATWG would trim it)'],
    ['http://example.com/in ', 'trailing space'],
    ['http://example.com/a b', 'space in the path'],
    ['http://example.com/a\r\nb', 'CR LF (WHATWG would drop them)'],
    ['http://example.com/a\tb', 'tab'],
    ['http://example.com/a\u0000b', 'NUL'],
    ['http:example.com/noslash', 'no // (WHATWG would add them)'],
    ['http:\\\\example.com\\back', 'backslashes (WHATWG would read them as /)'],
    ['http:/example.com/one-slash', 'one slash'],
    ['http:///example.com/three-slashes', 'three slashes (WHATWG would read the host after them)'],
    ['https:////example.com/', 'four slashes'],
    ['http://example.com:0/in', 'port 0'],
    ['http://example.com/a\ud800', 'a lone surrogate (each database stored a different U+FFFD)'],
    [`https://example.com/${'a'.repeat(TARGET_URL_MAX_LENGTH)}`, 'over 2048 characters'],
  ];

  it.each(invalid)('refuses %j as invalid_url (%s)', (url) => {
    const result = checkTargetUrl(url, strict);
    expect(result).toEqual({ ok: false, reason: 'invalid_url', message: expect.any(String) });
    // allowPrivate never relaxes the URL rules
    expect(checkTargetUrl(url, lax).ok).toBe(false);
  });

  it('accepts a URL of exactly 2048 characters', () => {
    const base = 'https://example.com/';
    const url = base + 'a'.repeat(TARGET_URL_MAX_LENGTH - base.length);
    expect(url).toHaveLength(TARGET_URL_MAX_LENGTH);
    expect(checkTargetUrl(url, strict).ok).toBe(true);
  });

  const blockedUrls: Array<[string, string]> = [
    ['http://127.0.0.1/', 'loopback'],
    ['http://127.0.0.1:8080/hook', 'loopback with port'],
    ['https://10.1.2.3/', 'private'],
    ['http://172.20.0.5/', 'private 172.16/12'],
    ['http://192.168.0.10/', 'private 192.168/16'],
    ['http://100.64.1.1/', 'CGNAT'],
    ['http://169.254.169.254/latest/meta-data/', 'metadata'],
    ['http://100.100.100.200/', 'Alibaba metadata'],
    ['http://0.0.0.0/', 'unspecified'],
    ['http://255.255.255.255/', 'broadcast'],
    ['http://224.0.0.1/', 'multicast'],
    ['http://[::1]/', 'IPv6 loopback'],
    ['http://[::]/', 'IPv6 unspecified'],
    ['http://[fe80::1]/', 'IPv6 link-local'],
    ['http://[fd00:ec2::254]/', 'IPv6 metadata'],
    ['http://[fc00::1]/', 'unique-local'],
    ['http://[::ffff:127.0.0.1]/', 'IPv4-mapped loopback'],
    ['http://[::ffff:169.254.169.254]/', 'IPv4-mapped metadata'],
    ['http://[ff02::1]/', 'IPv6 multicast'],
    ['http://2130706433/', 'decimal integer loopback'],
    ['http://0x7f.1/', 'hex short loopback'],
    ['http://0x7f000001/', 'hex integer loopback'],
    ['http://0177.0.0.1/', 'octal loopback'],
    ['http://127.1/', 'short loopback'],
    ['http://127.0.0.1./', 'trailing dot loopback'],
    ['http://0xa9fea9fe/', 'hex metadata'],
    ['http://localhost/', 'localhost'],
    ['http://LOCALHOST:3000/', 'localhost upper case'],
    ['http://localhost./', 'localhost with trailing dot'],
    ['http://api.localhost/', 'subdomain of localhost'],
    ['http://a.b.localhost./hook', 'deep subdomain of localhost with trailing dot'],
  ];

  it.each(blockedUrls)('refuses %s as blocked_address (%s) unless allowPrivate', (url) => {
    expect(checkTargetUrl(url, strict)).toEqual({
      ok: false,
      reason: 'blocked_address',
      message: expect.any(String),
    });
    const relaxed = checkTargetUrl(url, lax);
    expect(relaxed.ok).toBe(true);
  });

  it('does not resolve hostnames', () => {
    // a name that would resolve to loopback through a wildcard DNS service is still accepted here:
    // the delivery-time guard catches it after resolution
    expect(checkTargetUrl('http://127.0.0.1.nip.io/', strict).ok).toBe(true);
  });

  it('returns the parsed, normalised URL', () => {
    const result = checkTargetUrl('HTTPS://Example.COM:443/a/../b?q=1', strict);
    expect(result.ok && result.url.href).toBe('https://example.com/b?q=1');
  });

  it('does not echo the path or query (which may hold secrets) in messages', () => {
    const result = checkTargetUrl('http://127.0.0.1/hook?token=s3cret', strict);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).not.toContain('s3cret');
  });
});
