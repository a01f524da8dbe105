import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  hasControlCharacters,
  isSafeAddress,
  isSafeHeaderText,
  parseMailbox,
} from '../../src/services/mail/headers.js';

describe('header items', () => {
  it('refuse line breaks and every other control character', () => {
    for (const bad of ['a\rb', 'a\nb', 'a\tb', 'a\u0000b', 'a\u007fb', 'a\u0085b', 'a\u2028b', 'a\u2029b']) {
      assert.equal(hasControlCharacters(bad), true, JSON.stringify(bad));
      assert.equal(isSafeHeaderText(bad), false);
    }
    assert.equal(isSafeHeaderText('Example Server — ünïcode'), true);
    assert.equal(isSafeHeaderText('   '), false);
  });

  it('accept one HTML5 address only', () => {
    assert.equal(isSafeAddress('jane.doe+tag@example.org'), true);
    for (const bad of [
      'jane@example.org\r\nBcc: x@example.org',
      'a@example.org, b@example.org',
      '<a@example.org>',
      'jane',
    ]) {
      assert.equal(isSafeAddress(bad), false, bad);
    }
  });

  it('read the sender as `Name <address>` or a bare address', () => {
    assert.deepEqual(parseMailbox('authsvc <authsvc@localhost>'), { name: 'authsvc', address: 'authsvc@localhost' });
    assert.deepEqual(parseMailbox('"Example Auth" <auth@example.org>'), {
      name: 'Example Auth',
      address: 'auth@example.org',
    });
    assert.deepEqual(parseMailbox('auth@example.org'), { name: '', address: 'auth@example.org' });
    assert.equal(parseMailbox('Ex <a@example.org>\r\nBcc: v@example.org'), null);
    assert.equal(parseMailbox('Ex <a@example.org>, <b@example.org>'), null);
    assert.equal(parseMailbox(''), null);
  });
});
