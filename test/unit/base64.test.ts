import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
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
