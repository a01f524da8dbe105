/**
 * The security mail (docs/design.md#security-mail), through the real server and a real SMTP server behind a TCP proxy
 * of the test's own: each `notify` kind mails the account's address (an email change: the old one), at most once per
 * user and kind in five minutes; an SMTP outage never delays or fails the action, and the mail follows when the
 * server answers again.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { totpCodeAt } from '../../src/accounts/second-factor.js';
import { GOOD_PASSWORD, openSession, verifiedUser } from '../helpers/accounts.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';
import type { TcpProxy } from '../helpers/tcp-proxy.js';
import { until } from '../helpers/wait.js';
import { startSink } from '../mail/smtp-sink.js';
import type { Received, SmtpSink } from '../mail/smtp-sink.js';

const MINUTE = 60_000;
const NEW_PASSWORD = 'a-new-and-long-passphrase-77';

describe('security mail', () => {
  let smtp: SmtpSink;
  let proxy: TcpProxy;
  let server: TestServer;
  let users = 0;

  before(async () => {
    smtp = await startSink();
    proxy = await startTcpProxy(smtp.host, smtp.port);
    server = await startTestServer({
      config: {
        notify: ['lockout', 'password', 'email', 'factor', 'apikey', 'newdevice'],
        email: { server: '127.0.0.1', port: proxy.port, user: '', pass: '', sender: 'a@example.org', tlsCa: null },
      },
      mailTuning: { retryDelaysMs: [100, 200, 400, 800, 1600] },
    });
  });
  after(async () => {
    await server.close();
    await proxy.close();
    await smtp.close();
  });
  beforeEach(() => {
    proxy.restore();
    // Every test's mails are outside the last test's throttle window.
    server.clock.advance(10 * MINUTE);
  });

  const mailsTo = (address: string): Received[] => smtp.received.filter((m) => m.envelopeTo.includes(address));
  const subjectsTo = (address: string): string[] => mailsTo(address).map((m) => m.parsed.subject ?? '');
  async function mailed(address: string, count: number): Promise<string[]> {
    await until(`${String(count)} mail(s) to ${address}`, () => mailsTo(address).length >= count, 10_000);
    return subjectsTo(address);
  }
  /** Time for a mail that should not come to have come (bounded: one SMTP exchange on 127.0.0.1 takes milliseconds). */
  const settled = () => new Promise((resolve) => setTimeout(resolve, 300));

  async function user(): Promise<{ id: number; email: string; token: string }> {
    const email = `mail${String(++users)}@example.org`;
    const id = await verifiedUser(server, email);
    return { id, email, token: await openSession(server, id) };
  }

  const changePassword = (u: { id: number; email: string; token: string }, from: string, to: string) =>
    server.call('user-changepass', {
      user_id: u.id,
      session_token: u.token,
      full_name: 'Jane Doe',
      email: u.email,
      current_password: from,
      new_password: to,
    });

  async function login(email: string, password: string, userAgent: string): Promise<boolean> {
    const page = await server.call('session-new', {
      ip_address: '203.0.113.9',
      user_agent: userAgent,
      user_id: null,
      extra_info_json: {},
    });
    assert.ok(page.success);
    return (await server.call('user-login', { session_token: page.response.session_token, email, password })).success;
  }

  it('tells a changed password to the account, with when and from where', async () => {
    const u = await user();
    assert.ok((await changePassword(u, GOOD_PASSWORD, NEW_PASSWORD)).success);
    assert.deepEqual(await mailed(u.email, 1), ['[authsvc.test] Your password was changed']);
    const [mail] = mailsTo(u.email);
    assert.match(mail?.parsed.text ?? '', /IP address: 203\.0\.113\.7/);
    assert.ok(!(mail?.raw ?? '').includes(NEW_PASSWORD));
  });

  it('tells an email change to the address it replaced, never naming the new one', async () => {
    const u = await user();
    const edited = await server.call('user-edit', {
      user_id: u.id,
      user_role: 'authenticated',
      session_token: u.token,
      target_userid: u.id,
      update_dict: { email: 'somewhere-else@example.org' },
      password: GOOD_PASSWORD,
    });
    assert.ok(edited.success, JSON.stringify(edited));
    assert.deepEqual(await mailed(u.email, 1), ['[authsvc.test] The address of your account was changed']);
    assert.ok(!(mailsTo(u.email)[0]?.raw ?? '').includes('somewhere-else'));
    await settled();
    assert.deepEqual(mailsTo('somewhere-else@example.org'), []);
  });

  it('tells a lock-out once, however many failures follow', async () => {
    const u = await user();
    for (let i = 0; i < 14; i++) await login(u.email, `wrong ${String(i)}`, 'Guesser');
    assert.deepEqual(await mailed(u.email, 1), ['[authsvc.test] Your account was locked']);
    await settled();
    assert.equal(mailsTo(u.email).length, 1);
  });

  it('tells a second factor added and removed', async () => {
    const u = await user();
    const started = await server.call('user-totp-new', { user_id: u.id, session_token: u.token, name: 'phone' });
    assert.ok(started.success);
    const confirmed = await server.call('user-totp-confirm', {
      user_id: u.id,
      session_token: u.token,
      factor_id: started.response.factor_id,
      code: totpCodeAt(started.response.secret, server.clock.now()),
    });
    assert.ok(confirmed.success, JSON.stringify(confirmed));
    const removed = await server.call('user-factor-delete', {
      user_id: u.id,
      session_token: u.token,
      factor_id: started.response.factor_id,
    });
    assert.ok(removed.success, JSON.stringify(removed));
    assert.deepEqual((await mailed(u.email, 2)).sort(), [
      '[authsvc.test] A second factor was added to your account',
      '[authsvc.test] A second factor was removed from your account',
    ]);
  });

  it('tells an API key created', async () => {
    const u = await user();
    const issued = await server.call('apikey-new-nosession', {
      issuer: 'frontend',
      audience: 'api.example.org',
      subject: '/api/data',
      apiversion: 3,
      expires_seconds: 3600,
      not_valid_before: 0,
      refresh_expires: 86_400,
      refresh_nbf: 0,
      user_id: u.id,
      user_role: 'authenticated',
      ip_address: '198.51.100.3',
    });
    assert.ok(issued.success, JSON.stringify(issued));
    assert.deepEqual(await mailed(u.email, 1), ['[authsvc.test] An API key was created for your account']);
  });

  it('tells a login from a browser not seen before, not the first login nor a known browser', async () => {
    const u = await user();
    assert.ok(await login(u.email, GOOD_PASSWORD, 'Firefox on Linux'), 'the first login: nothing to compare with');
    server.clock.advance(MINUTE);
    assert.ok(await login(u.email, GOOD_PASSWORD, 'Firefox on Linux'), 'the same browser again');
    await settled();
    assert.deepEqual(mailsTo(u.email), []);
    server.clock.advance(MINUTE);
    assert.ok(await login(u.email, GOOD_PASSWORD, 'Safari\r\nBcc: x@evil.example on iPhone'));
    assert.deepEqual(await mailed(u.email, 1), ['[authsvc.test] New login to your account']);
    const text = mailsTo(u.email)[0]?.parsed.text ?? '';
    assert.match(text, /^Browser: Safari Bcc: x@evil\.example on iPhone$/m, 'the user agent on one line');
    assert.deepEqual(mailsTo('x@evil.example'), []);
  });

  it('sends at most one mail per user and kind in five minutes', async () => {
    const u = await user();
    assert.ok((await changePassword(u, GOOD_PASSWORD, NEW_PASSWORD)).success);
    assert.ok((await changePassword(u, NEW_PASSWORD, GOOD_PASSWORD)).success);
    await mailed(u.email, 1);
    await settled();
    assert.equal(mailsTo(u.email).length, 1, 'the second change within five minutes is not mailed');
    server.clock.advance(5 * MINUTE);
    assert.ok((await changePassword(u, GOOD_PASSWORD, NEW_PASSWORD)).success);
    assert.equal((await mailed(u.email, 2)).length, 2);
  });

  it('answers at once while the SMTP server is down, and mails once it answers again', async () => {
    const u = await user();
    proxy.refuse();
    const changed = await changePassword(u, GOOD_PASSWORD, NEW_PASSWORD);
    assert.ok(changed.success, 'the action succeeds');
    assert.equal(mailsTo(u.email).length, 0);
    await until('a failed attempt is logged', () =>
      server.logs.some((l) => l.message === 'security mail not sent' && l['failure'] === 'smtp_unreachable'),
    );
    proxy.restore();
    assert.deepEqual(await mailed(u.email, 1), ['[authsvc.test] Your password was changed']);
    const logged = server.logs.filter((l) => l.message === 'security mail not sent');
    assert.ok(!JSON.stringify(logged).includes(u.email), 'the log names no address');
  });

  it('answers while the SMTP server swallows every byte', async () => {
    const u = await user();
    proxy.blackhole();
    // The send waits for a greeting that never comes; the action and the next request do not.
    const changed = await changePassword(u, GOOD_PASSWORD, NEW_PASSWORD);
    assert.ok(changed.success);
    assert.ok((await server.call('session-exists', { session_token: u.token })).success);
    assert.equal(mailsTo(u.email).length, 0);
    proxy.restore();
  });
});

describe('security mail, off by default', () => {
  let smtp: SmtpSink;
  let server: TestServer;
  before(async () => {
    smtp = await startSink();
    server = await startTestServer({
      config: {
        email: { server: '127.0.0.1', port: smtp.port, user: '', pass: '', sender: 'a@example.org', tlsCa: null },
      },
    });
  });
  after(async () => {
    await server.close();
    await smtp.close();
  });

  it('sends nothing without notify', async () => {
    const id = await verifiedUser(server, 'quiet@example.org');
    const token = await openSession(server, id);
    const changed = await server.call('user-changepass', {
      user_id: id,
      session_token: token,
      full_name: 'Jane Doe',
      email: 'quiet@example.org',
      current_password: GOOD_PASSWORD,
      new_password: NEW_PASSWORD,
    });
    assert.ok(changed.success);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(smtp.connections(), 0);
  });
});
