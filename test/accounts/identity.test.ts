import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { checkSignupEmail } from '../../src/accounts/email.js';
import { normaliseEmail } from '../../src/protocol/index.js';
import { holdsLink, normaliseFullName } from '../../src/accounts/full-name.js';

describe('sign-up emails', () => {
  it('accepts and normalises ordinary addresses', () => {
    assert.deepEqual(checkSignupEmail('Jane.Doe+Tag@Example.ORG'), { ok: true, email: 'jane.doe+tag@example.org' });
    assert.deepEqual(
      checkSignupEmail('ｊａｎｅ@example.org'),
      { ok: true, email: 'jane@example.org' },
      'NFKC folds full-width letters',
    );
  });

  it('refuses what is not an HTML5 address', () => {
    for (const email of [
      '',
      'jane',
      '@example.org',
      'jane@',
      'a@b@example.org',
      'jane doe@example.org',
      'jane@-example.org',
      'jané@example.org',
      'jane@exámple.org',
      'jane@localhost',
      'jane@example..org',
      `${'x'.repeat(65)}@example.org`,
    ]) {
      assert.equal(checkSignupEmail(email).ok, false, email);
    }
  });

  it('refuses confusable Unicode look-alikes', () => {
    for (const email of ['jаne@example.org', 'jane@exаmple.org', 'ρaypal@example.org'])
      assert.equal(checkSignupEmail(email).ok, false, email);
  });

  it('refuses reserved local parts, in any case', () => {
    for (const local of ['admin', 'Root', 'postmaster', 'no-reply', 'robots.txt', 'support', 'WWW']) {
      assert.deepEqual(checkSignupEmail(`${local}@example.org`), { ok: false, reason: 'reserved local part' }, local);
    }
  });

  it('refuses disposable domains and their subdomains', () => {
    for (const email of ['jane@mailinator.com', 'jane@x.mailinator.com', 'jane@MAILINATOR.COM']) {
      assert.deepEqual(checkSignupEmail(email), { ok: false, reason: 'disposable domain' }, email);
    }
  });

  it('normalises idempotently and never throws', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        assert.equal(normaliseEmail(normaliseEmail(s)), normaliseEmail(s));
        const checked = checkSignupEmail(s);
        if (checked.ok) assert.equal(checkSignupEmail(checked.email).ok, true);
      }),
    );
  });
});

describe('full names', () => {
  it('squeezes blanks and applies NFKC, keeping the text otherwise as given (not HTML-escaped)', () => {
    assert.equal(normaliseFullName('  Jane \t\n  O\u2019Brien <b>  '), 'Jane O\u2019Brien <b>');
    assert.equal(normaliseFullName('Ｊａｎｅ\u00a0Doe'), 'Jane Doe');
  });

  it('refuses names holding links', () => {
    for (const name of [
      'Visit https://spam.example',
      'www.spam',
      'Cheap pills at pills.com',
      'J Doe (acme.co.uk)',
      'пример.рф',
    ]) {
      assert.equal(holdsLink(name), true, name);
    }
  });

  it('accepts names with dots that are not host names', () => {
    for (const name of [
      'J. Smith',
      'j.smith',
      'Dr.Who',
      'St.Louis Blues',
      'Mary-Jane O.',
      'A.B. Cee',
      'Jane Doe 3.5',
    ]) {
      assert.equal(holdsLink(name), false, name);
    }
  });
});
