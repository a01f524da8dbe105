import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodeBase64, decodeBase64Url } from '../../src/protocol/index.js';

describe('strict base64', () => {
  it('decodes canonical, padded text', () => {
    assert.equal(decodeBase64('aGVsbG8=')?.toString(), 'hello');
    assert.equal(decodeBase64('aGVsbG8'), null, 'padding is required, as in Python');
    assert.equal(decodeBase64Url('-_-_')?.toString('hex'), 'fbffbf');
  });
  it('refuses other alphabets, stray characters, wrong padding and non-canonical bits', () => {
    for (const text of ['aGVs bG8=', 'aGVsbG8==', 'aGVsbG8=a', 'a', '-_-_', 'aGVsbG9=']) {
      assert.equal(decodeBase64(text), null, text);
    }
    assert.equal(decodeBase64Url('+/+/'), null);
  });
});

describe('strict base64, against a plain definition', () => {
  /** Strict means: the alphabet's characters, then at most two `=`, and the text is what its bytes re-encode to. */
  function oracle(text: string, url: boolean): string | null {
    const alphabet = url ? /^[A-Za-z0-9_-]*={0,2}$/ : /^[A-Za-z0-9+/]*={0,2}$/;
    if (text.length % 4 !== 0 || !alphabet.test(text)) return null;
    const bytes = Buffer.from(text, url ? 'base64url' : 'base64');
    const again = bytes.toString('base64');
    const padded = url ? again.replaceAll('+', '-').replaceAll('/', '_') : again;
    return padded === text ? bytes.toString('hex') : null;
  }
  // Mostly valid characters, with each kind of trouble mixed in: the other alphabet, padding, spaces, non-ASCII.
  const chars = fc.constantFrom(...'ABCDQRSTgw0189+/-_= \né\u0000'.split(''));
  const encoded = (bytes: Uint8Array, url: boolean): string => {
    const text = Buffer.from(bytes).toString('base64');
    return url ? text.replaceAll('+', '-').replaceAll('/', '_') : text;
  };
  const cases = fc.boolean().chain((url) =>
    fc.tuple(
      fc.oneof(
        fc.array(chars, { maxLength: 16 }).map((cs) => cs.join('')),
        fc.tuple(fc.uint8Array({ maxLength: 12 }), fc.nat(16), chars).map(([bytes, at, c]) => {
          // A valid encoding with one character changed (or none when `at` is past the end).
          const text = encoded(bytes, url);
          return at < text.length ? text.slice(0, at) + c + text.slice(at + 1) : text;
        }),
      ),
      fc.constant(url),
    ),
  );
  it('decodes exactly what the definition accepts, to the same bytes', () => {
    fc.assert(
      fc.property(cases, ([text, url]) => {
        const decoded = (url ? decodeBase64Url : decodeBase64)(text);
        assert.equal(decoded === null ? null : decoded.toString('hex'), oracle(text, url), JSON.stringify(text));
      }),
      { numRuns: 5000 },
    );
  });
});
