import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { forgotPassMail, signupMail } from '../../src/mail/templates.js';
import type { MailFacts } from '../../src/mail/templates.js';

const facts: MailFacts = {
  to: 'jane@example.org',
  serverName: 'Example <b>Server</b>',
  baseUrl: 'https://app.example.org',
  link: 'https://app.example.org/verify?a=1&b=2',
  token: 'x'.repeat(300),
  expiry: '2026-11-23T10:00:00.000000+00:00 (UTC time)',
  browser: 'Mozilla/5.0 <script>alert(1)</script>',
  ipAddress: '203.0.113.9',
};

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
