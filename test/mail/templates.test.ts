import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { forgotPassMail, mailFacts, signupMail } from '../../src/services/mail/templates.js';
import type { MailInput } from '../../src/services/mail/templates.js';

const facts = mailFacts({
  to: 'jane@example.org',
  serverName: 'Example <b>Server</b>',
  baseUrl: 'https://app.example.org',
  link: 'https://app.example.org/verify?a=1&b=2',
  token: 'x'.repeat(300),
  expiry: '2026-11-23T10:00:00.000000+00:00 (UTC time)',
  browser: 'Mozilla/5.0 <script>alert(1)</script>',
  ipAddress: '203.0.113.9',
});

describe('the mail texts', () => {
  it('keep the token on one line in both bodies', () => {
    for (const mail of [signupMail(facts), forgotPassMail(facts)]) {
      assert.ok(mail.text.split('\n').includes(facts.token));
      assert.ok(mail.html.includes(`white-space:nowrap">${facts.token}</code>`));
    }
  });

  it('escape every value in the HTML alternative', () => {
    const { html } = signupMail(facts);
    assert.ok(!html.includes('<script>') && !html.includes('<b>'));
    assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.ok(html.includes('<a href="https://app.example.org/verify?a=1&amp;b=2">'));
  });

  it('follow the reference’s subjects and wording', () => {
    assert.equal(signupMail(facts).subject, '[Example <b>Server</b>] Please verify your account sign up request');
    assert.equal(forgotPassMail(facts).subject, '[Example <b>Server</b>] Please verify your password reset request');
    assert.ok(
      signupMail(facts).text.startsWith(
        'Hello,\n\nThis is an automated message from the Example <b>Server</b> at: https://app.example.org.\n\n',
      ),
    );
    assert.ok(
      signupMail(facts).text.includes('You will also need to enter your email address and password\nto log in.'),
    );
    assert.ok(!forgotPassMail(facts).text.includes('You will also need'));
  });
});

describe('every value printed as text', () => {
  const input = (value: string): MailInput => ({
    to: 'jane@example.org',
    serverName: `Example ${value}`,
    baseUrl: 'https://app.example.org',
    link: 'https://app.example.org/verify',
    token: 'token',
    expiry: '2026-11-23T10:00:00.000000+00:00 (UTC time)',
    browser: value,
    ipAddress: value,
  });
  const hostile = (value: string) => mailFacts(input(value));

  it('is one line of at most 200 characters in both bodies, and escaped in the HTML', () => {
    const value = `<b>Mozilla</b>\r\n\r\nURGENT: call us.\u2028\u202E${'x'.repeat(300)}`;
    for (const mail of [signupMail(hostile(value)), forgotPassMail(hostile(value))]) {
      const browser = mail.text.split('using the browser:\n\n')[1]?.split('\n\n')[0] ?? '';
      assert.ok(browser.startsWith('<b>Mozilla</b> URGENT: call us. xxx'), browser);
      assert.equal(Array.from(browser).length, 200);
      assert.ok(mail.text.includes(`\n\nfrom the IP address: ${browser}.\n\n`));
      assert.ok(mail.html.includes(`<p>${browser.replace(/</g, '&lt;').replace(/>/g, '&gt;')}</p>`));
      assert.ok(!mail.html.includes('<b>'));
      assert.ok(!mail.subject.includes('\n') && !mail.subject.includes('\u202E'));
    }
  });

  it('keeps the link and the token whole', () => {
    const long = mailFacts({
      ...input('x'),
      link: `https://app.example.org/${'a'.repeat(500)}`,
      token: 't'.repeat(500),
    });
    const { text } = signupMail(long);
    assert.ok(text.includes(`\n\n${'t'.repeat(500)}\n\n`));
    assert.ok(text.includes(`form at: https://app.example.org/${'a'.repeat(500)}\n`));
  });

  it('never holds a control, format or line-break character, and the HTML never an unescaped one', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 1_100 }), (value) => {
        const mail = signupMail(hostile(value));
        const browser = mail.text.split('using the browser:\n\n')[1]?.split('\n\n')[0] ?? '';
        assert.ok(!/[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u.test(browser), JSON.stringify(browser));
        const html = /using the browser:<\/p>\n<p>(.*?)<\/p>/su.exec(mail.html)?.[1] ?? '';
        assert.ok(!/[<>"'\n]/.test(html), html);
      }),
    );
  });
});
