import { requestIdInRefusedBytes } from './raw-answer';

describe(requestIdInRefusedBytes.name, () => {
  const refused = (text: string, stoppedAt: number, code = 'HPE_INVALID_METHOD') => requestIdInRefusedBytes({ code, rawPacket: Buffer.from(text, 'latin1'), bytesParsed: stoppedAt });
  const ok = 'GET /health HTTP/1.1\r\nHost: x\r\nX-Request-Id: earlier\r\n\r\n';

  it('reads the id in the head of the request the parser stopped in', () => {
    expect(refused('FOO /health HTTP/1.1\r\nHost: x\r\nX-Request-Id: mine-1\r\n\r\n', 1)).toBe('mine-1');
    expect(refused(`${ok}FOO /health HTTP/1.1\r\nx-request-id:mine-2 \r\n\r\n`, ok.length + 1)).toBe('mine-2');
  });

  it('walks past the bodies of the requests before it, by their Content-Length', () => {
    const body = '\r\nX-Request-Id: in-a-body\r\n\r\n';
    const before = `POST /x HTTP/1.1\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    expect(refused(`${before}FOO / HTTP/1.1\r\nX-Request-Id: after-body\r\n\r\n`, before.length)).toBe('after-body');
    // a chunked body cannot be walked: no id rather than a wrong one
    expect(refused(`POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nFOO / HTTP/1.1\r\nX-Request-Id: x\r\n\r\n`, 60)).toBeUndefined();
  });

  it('reads a head too large up to where the parser stopped, at its blank line at the latest', () => {
    const head = `GET /health HTTP/1.1\r\nX-Request-Id: too-big\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`;
    expect(refused(head, head.length, 'HPE_HEADER_OVERFLOW')).toBe('too-big');
    expect(refused(head, 16_384, 'HPE_HEADER_OVERFLOW')).toBe('too-big');
  });

  it("never takes another request's id, nor one given twice", () => {
    const failing = 'FOO / HTTP/1.1\r\nHost: x\r\n\r\n';
    expect(refused(`${failing}GET /health HTTP/1.1\r\nX-Request-Id: next-one\r\n\r\n`, 1)).toBeUndefined();
    expect(refused('FOO / HTTP/1.1\r\nX-Request-Id: a\r\nX-Request-Id: b\r\n\r\n', 1)).toBeUndefined();
    expect(requestIdInRefusedBytes({ code: 'HPE_INVALID_METHOD' })).toBeUndefined();
  });
});
