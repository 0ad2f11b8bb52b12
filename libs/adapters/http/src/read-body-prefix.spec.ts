import { Readable } from 'node:stream';
import { decodeUtf8Prefix, readBodyPrefix } from './read-body-prefix';

describe('decodeUtf8Prefix', () => {
  const euro = Buffer.from('€'); // e2 82 ac

  it('decodes a whole body as is', () => {
    expect(decodeUtf8Prefix(Buffer.from('héllo'), false)).toBe('héllo');
  });

  it.each([1, 2])('drops a character cut after %i of its bytes when the body was cut', (n) => {
    const bytes = Buffer.concat([Buffer.from('ab'), euro.subarray(0, n)]);
    expect(decodeUtf8Prefix(bytes, true)).toBe('ab');
  });

  it('keeps a complete final character when the body was cut', () => {
    expect(decodeUtf8Prefix(Buffer.concat([Buffer.from('ab'), euro]), true)).toBe('ab€');
  });

  it('drops a cut 4-byte character', () => {
    const rocket = Buffer.from('🚀');
    expect(decodeUtf8Prefix(Buffer.concat([Buffer.from('x'), rocket.subarray(0, 3)]), true)).toBe('x');
  });

  it('keeps a byte order mark', () => {
    expect(decodeUtf8Prefix(Buffer.from('\uFEFFok'), false)).toBe('\uFEFFok');
  });
});

describe('readBodyPrefix', () => {
  it('reads a short body whole', async () => {
    await expect(readBodyPrefix(Readable.from([Buffer.from('ab'), Buffer.from('cd')]), 10)).resolves.toBe('abcd');
  });

  it('stops at the limit and destroys the stream without reading the rest', async () => {
    let pulled = 0;
    const endless = new Readable({
      read() {
        pulled++;
        this.push(Buffer.alloc(1024, 'z'));
      },
    });
    const text = await readBodyPrefix(endless, 3000);
    expect(text).toBe('z'.repeat(3000));
    expect(endless.destroyed).toBe(true);
    expect(pulled).toBeLessThan(10);
  });

  it('propagates a stream error', async () => {
    const failing = new Readable({
      read() {
        this.destroy(Object.assign(new Error('gone'), { code: 'ECONNRESET' }));
      },
    });
    await expect(readBodyPrefix(failing, 100)).rejects.toMatchObject({ code: 'ECONNRESET' });
  });

  it('rejects a stream that closes before its end', async () => {
    const cut = new Readable({
      read() {
        this.push(Buffer.from('partial'));
        this.destroy();
      },
    });
    await expect(readBodyPrefix(cut, 100)).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });

  it('reads an empty body', async () => {
    await expect(readBodyPrefix(Readable.from([]), 10)).resolves.toBe('');
  });
});
