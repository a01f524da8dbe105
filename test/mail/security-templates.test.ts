import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { SECURITY_MAIL_KINDS, securityMail } from '../../src/services/mail/templates.js';
import type { SecurityMailInput } from '../../src/services/mail/templates.js';

const facts: SecurityMailInput = {
  to: 'jane@example.org',
  serverName: 'Example <b>Server</b>',
  baseUrl: 'https://app.example.org',
  time: '2026-11-23T10:00:00.000Z',
  ipAddress: '203.0.113.9',
  browser: 'Mozilla/5.0 <script>alert(1)</script> "quoted" & \'single\'',
};

/** What must never reach a body from a value: controls, format characters (bidi, zero-width), separators. */
const UNFIT = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;

describe('the security mails', () => {
  it('render every kind in both bodies: what happened, when, from where, and what to do', () => {
    const subjects = new Set<string>();
    for (const kind of SECURITY_MAIL_KINDS) {
      const mail = securityMail(kind, facts);
      assert.equal(mail.to, 'jane@example.org');
      assert.ok(mail.subject.startsWith('[Example <b>Server</b>] '), mail.subject);
      subjects.add(mail.subject);
      assert.ok(
        mail.text.startsWith(
          'Hello,\n\nThis is an automated message from the Example <b>Server</b> at: https://app.example.org,\n' +
            'about your account jane@example.org.\n\n',
        ),
        mail.text,
      );
      assert.ok(
        mail.text.includes(
          '\n\nWhen: 2026-11-23T10:00:00.000Z\nIP address: 203.0.113.9\n' + `Browser: ${facts.browser}\n\n`,
        ),
        mail.text,
      );
      assert.ok(mail.text.includes('If this was not you'), kind);
      assert.ok(mail.text.includes('administrators'), kind);
      assert.ok(mail.text.endsWith('\n\nThanks,\nExample <b>Server</b> admins\nhttps://app.example.org\n'), kind);
      assert.ok(mail.html.startsWith('<!DOCTYPE html>'), kind);
      assert.ok(mail.html.includes('If this was not you'), kind);
      // No links but the base URL, printed as text like the two other mails.
      assert.ok(!mail.html.includes('<a '), kind);
      assert.deepEqual(mail.text.match(/https?:\/\/[^\s,]+/g), ['https://app.example.org', 'https://app.example.org']);
    }
    assert.equal(subjects.size, SECURITY_MAIL_KINDS.length, 'one subject per kind');
    assert.equal(securityMail('password-changed', facts).subject, '[Example <b>Server</b>] Your password was changed');
  });

  it('escape every value in the HTML alternative', () => {
    for (const kind of SECURITY_MAIL_KINDS) {
      const { html } = securityMail(kind, facts);
      assert.ok(!html.includes('<script>') && !html.includes('<b>'), kind);
      assert.ok(html.includes('<title>[Example &lt;b&gt;Server&lt;/b&gt;] '), kind);
      assert.ok(
        html.includes(
          'Browser: Mozilla/5.0 &lt;script&gt;alert(1)&lt;/script&gt; &quot;quoted&quot; &amp; &#39;single&#39;</p>',
        ),
        kind,
      );
    }
  });

  it('leave out the lines of what is not known, and the base URL when empty', () => {
    const mail = securityMail('new-device', { ...facts, baseUrl: '', ipAddress: '', browser: '' });
    assert.ok(mail.text.includes('\n\nWhen: 2026-11-23T10:00:00.000Z\n\n'), mail.text);
    assert.ok(!mail.text.includes('IP address') && !mail.text.includes('Browser'));
    assert.ok(mail.text.includes('from the Example <b>Server</b>,\nabout your account'), mail.text);
    assert.ok(mail.text.endsWith('\n\nThanks,\nExample <b>Server</b> admins\n'), mail.text);
    assert.ok(!mail.html.includes('IP address') && !mail.html.includes(' at: '));
    // A value that printable() empties (only controls) counts as unknown too.
    const blank = securityMail('locked', { ...facts, ipAddress: '\r\n\u202E', browser: '\u200B' });
    assert.ok(!blank.text.includes('IP address') && !blank.text.includes('Browser'), blank.text);
  });

  it('never show the new address in email-changed', () => {
    // Whatever a caller passes besides the facts, only the facts are printed.
    const withNew = { ...facts, newEmail: 'mallory@evil.example', email: 'mallory@evil.example' };
    const mail = securityMail('email-changed', withNew);
    for (const part of [mail.subject, mail.text, mail.html]) assert.ok(!part.includes('mallory'), part);
    assert.equal(mail.to, 'jane@example.org');
    assert.equal(mail.subject, '[Example <b>Server</b>] The address of your account was changed');
    assert.ok(mail.text.includes('The address of your account was changed'));
    assert.deepEqual(mail.text.match(/[^\s<>]+@[^\s<>,]+/g), ['jane@example.org.']);
  });

  it('print every value on one line, fit to print, whatever it holds', () => {
    const benign = (kind: (typeof SECURITY_MAIL_KINDS)[number]) => securityMail(kind, facts).text.split('\n').length;
    fc.assert(
      fc.property(
        fc.constantFrom(...SECURITY_MAIL_KINDS),
        fc.string({ unit: 'binary', maxLength: 400 }),
        (kind, value) => {
          // The `x` keeps each value non-empty once made printable, so that no line is left out.
          const hostile = `x${value}`;
          const mail = securityMail(kind, {
            to: facts.to,
            serverName: hostile,
            baseUrl: hostile,
            time: hostile,
            ipAddress: hostile,
            browser: hostile,
          });
          assert.equal(mail.text.split('\n').length, benign(kind), mail.text);
          assert.ok(!UNFIT.test(mail.text.replace(/\n/g, '')), JSON.stringify(mail.text));
          assert.ok(!UNFIT.test(mail.subject), JSON.stringify(mail.subject));
          assert.ok(!UNFIT.test(mail.html.replace(/\n/g, '')), JSON.stringify(mail.html));
          // In the HTML, no value can open a tag or an attribute: every < > " ' there is the template's own.
          const paragraphs = /<body>\n(.*)\n<\/body>/s.exec(mail.html)?.[1] ?? '';
          const values = paragraphs.replace(/<\/?p>|<br>/g, '');
          assert.ok(!/[<>"']/.test(values), values);
        },
      ),
    );
  });
});
