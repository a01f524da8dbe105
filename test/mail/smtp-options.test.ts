import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MailSettings } from '../../src/services/mail/mailer.js';
import { isLoopback, mailTimeouts, transportOptions } from '../../src/services/mail/smtp-options.js';

const base: MailSettings = {
  server: 'smtp.example.org',
  port: 587,
  user: '',
  pass: '',
  sender: 'a@example.org',
  tlsCa: null,
};

describe('SMTP transport options', () => {
  it('use implicit TLS on 465 and STARTTLS when offered elsewhere', () => {
    assert.equal(transportOptions({ ...base, port: 465 }).secure, true);
    const submission = transportOptions(base);
    assert.equal(submission.secure, false);
    assert.notEqual(submission.ignoreTLS, true, 'STARTTLS whenever the server offers it');
    assert.notEqual(submission.opportunisticTLS, true, 'a failed upgrade is not ignored');
  });

  it('authenticate only when both user and password are set', () => {
    assert.equal(transportOptions({ ...base, user: 'u' }).auth, undefined);
    assert.equal(transportOptions({ ...base, pass: 'p' }).auth, undefined);
    assert.deepEqual(transportOptions({ ...base, user: 'u', pass: 'p' }).auth, { user: 'u', pass: 'p' });
  });

  it('require TLS before sending credentials to a server that is not loopback', () => {
    assert.equal(transportOptions({ ...base, user: 'u', pass: 'p' }).requireTLS, true);
    assert.equal(transportOptions(base).requireTLS, false, 'no credentials, nothing to protect');
    assert.equal(transportOptions({ ...base, server: 'localhost', port: 25, user: 'u', pass: 'p' }).requireTLS, false);
    for (const host of ['localhost', '127.0.0.1', '127.1.2.3', '::1', '[::1]'])
      assert.equal(isLoopback(host), true, host);
    for (const host of ['localhost.example.org', '10.0.0.1', 'mail']) assert.equal(isLoopback(host), false, host);
  });

  it('time out in seconds, not minutes', () => {
    const options = transportOptions(base);
    for (const key of ['connectionTimeout', 'greetingTimeout', 'socketTimeout'] as const) {
      assert.ok((options[key] ?? Infinity) <= 15_000, key);
    }
  });

  it('end each send within 30 s, destroying the socket rather than waiting for the server', () => {
    assert.equal(mailTimeouts(base).sendMs, 30_000);
    assert.equal(mailTimeouts({ ...base, timeouts: { sendMs: 1_500 } }).sendMs, 1_500);
    assert.equal(transportOptions(base).socketCloseTimeout, 0);
  });

  it('add emailtlsca to the system roots rather than replacing them', () => {
    const pem = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const ca = transportOptions({ ...base, tlsCa: pem }).tls?.ca;
    assert.ok(Array.isArray(ca) && ca.length > 1 && ca.at(-1) === pem.toString());
    assert.equal(transportOptions(base).tls?.rejectUnauthorized, undefined, 'verification stays on');
  });
});
