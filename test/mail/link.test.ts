import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildLink } from '../../src/services/mail/link.js';

describe('the link in a mail', () => {
  it('joins the base URL and the fragment with exactly one slash', () => {
    for (const [base, fragment] of [
      ['https://app.example.org', '/users/verify'],
      ['https://app.example.org/', '/users/verify'],
      ['https://app.example.org//', 'users/verify'],
      ['https://app.example.org/', '//users/verify'],
    ] as const) {
      assert.deepEqual(buildLink(base, fragment), {
        base: 'https://app.example.org',
        href: 'https://app.example.org/users/verify',
      });
    }
  });

  it('keeps the base path, a query and a fragment of the URL fragment', () => {
    assert.equal(
      buildLink('https://example.org/app/', 'verify?step=2#code')?.href,
      'https://example.org/app/verify?step=2#code',
    );
    assert.equal(buildLink('http://localhost:8000', '/v')?.href, 'http://localhost:8000/v');
  });

  it('treats a fragment that looks like another host as a path on this one', () => {
    assert.equal(
      buildLink('https://app.example.org', '//evil.example/x')?.href,
      'https://app.example.org/evil.example/x',
    );
  });

  it('refuses a link that could leave the base URL or break the mail', () => {
    const refused: Array<[string, string]> = [
      ['https://app.example.org', 'https://evil.example/'],
      ['https://app.example.org', 'javascript:alert(1)'],
      ['https://app.example.org/app', '/../admin'],
      ['https://app.example.org', '/\\evil.example'],
      ['https://app.example.org', '/verify\r\nBcc: x@example.org'],
      ['https://app.example.org', '/ver ify'],
      ['https://app.example.org', '/verify\u2028'],
      ['javascript:alert(1)', '/x'],
      ['ftp://example.org', '/x'],
      ['https://user:pw@example.org', '/x'],
      ['https://example.org/?q=1', '/x'],
      ['https://example.org/#top', '/x'],
      ['not a url', '/x'],
      ['https://example.org\n', '/x'],
    ];
    for (const [base, fragment] of refused) {
      assert.equal(buildLink(base, fragment), null, `${JSON.stringify(base)} + ${JSON.stringify(fragment)}`);
    }
  });
});
