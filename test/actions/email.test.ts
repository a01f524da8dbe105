import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { failures } from '../../src/domain/errors.js';
import type { FailureCode } from '../../src/protocol/failure-codes.js';
import { formatDateTime } from '../../src/protocol/index.js';
import { optionalTimeFromDb } from '../../src/services/store/dialect.js';
import { GOOD_PASSWORD, markVerified, openSession, storedUser } from '../helpers/accounts.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import type { MailTimeouts } from '../../src/services/mail/mailer.js';
import { startDribblingServer, startSilentServer, startSink } from '../mail/smtp-sink.js';
import type { Received, SmtpSink } from '../mail/smtp-sink.js';

const SENT = ['If that address belongs to an account, we have sent it an email.'];
const DAY = 86_400_000;
// Longer than the reference's 70-column wrap and than a quoted-printable line: it must arrive whole.
const TOKEN = `eyJ1c2VyIjoiamFuZSJ9.${'Zm9vYmFy'.repeat(20)}.aGVsbG8td29ybGQ_-`;
const SENDER = 'Example Auth <auth@example.org>';

const emailConfig = (port: number, timeouts: Partial<MailTimeouts> = {}) => ({
  email: { server: '127.0.0.1', port, user: '', pass: '', sender: SENDER, tlsCa: null, timeouts },
});

const common = (email: string, session: string) => ({
  email_address: email,
  session_token: session,
  server_name: 'Example Server',
  server_baseurl: 'https://app.example.org/',
  verification_token: TOKEN,
  verification_expiry: 900,
});

const sentTo = (sink: SmtpSink, email: string): Received[] => sink.received.filter((r) => r.envelopeTo.includes(email));

async function sentTimes(server: TestServer, userId: number) {
  const row = await storedUser(server, userId);
  return {
    verify: optionalTimeFromDb(row.emailverify_sent_datetime),
    forgot: optionalTimeFromDb(row.emailforgotpass_sent_datetime),
  };
}

function assertRefused(
  reply: { success: boolean; messages: readonly string[]; response: object },
  code: FailureCode,
): void {
  assert.equal(reply.success, false, JSON.stringify(reply));
  assert.deepEqual(reply.messages, SENT, 'the same sentence as a success');
  assert.equal((reply as { failure_reason?: string }).failure_reason, failures[code].reason);
  for (const [key, value] of Object.entries(reply.response)) {
    if (key !== 'failure_reason') assert.equal(value, null, `${key} is null`);
  }
}

forEachDatabase((db) => {
  let server: TestServer;
  let sink: SmtpSink;
  before(async () => {
    sink = await startSink({ refuse: (address) => address.startsWith('refused') });
    server = await startTestServer({ database: db, config: emailConfig(sink.port) });
  });
  after(async () => {
    await server.close();
    await sink.close();
  });

  async function signUp(email: string) {
    const reply = await server.call('user-new', { email, password: GOOD_PASSWORD, full_name: 'Jane Doe' });
    assert.equal(reply.success, true, JSON.stringify(reply));
    return reply.response;
  }

  describe('user-sendemail-signup', () => {
    it('sends the verification mail (plain and HTML) and records the time', async () => {
      const created = await signUp('jane@example.org');
      const session = await openSession(server);
      server.clock.advance(60_000); // the sign-up's own mark (user-new) is a minute older
      const reply = await server.call('user-sendemail-signup', {
        ...common('Jane@Example.org', session),
        created_info: created,
        account_verify_url: '/users/verify',
        // The reference's per-request SMTP items are ignored: only the configuration decides.
        emailserver: '192.0.2.99',
        emailport: 2525,
      });
      assert.equal(reply.success, true, JSON.stringify(reply));
      assert.deepEqual(reply.messages, SENT);
      const now = server.clock.now();
      assert.deepEqual(reply.response, {
        user_id: created.user_id,
        email_address: 'jane@example.org',
        emailverify_sent_datetime: formatDateTime(now),
      });
      assert.deepEqual(await sentTimes(server, created.user_id), { verify: now, forgot: null });

      const [mail] = sentTo(sink, 'jane@example.org');
      assert.ok(mail, 'one mail arrived');
      const { parsed } = mail;
      assert.equal(parsed.subject, '[Example Server] Please verify your account sign up request');
      assert.equal(parsed.from?.text, '"Example Auth" <auth@example.org>');
      assert.equal(parsed.to && !Array.isArray(parsed.to) ? parsed.to.text : null, 'jane@example.org');
      const text = parsed.text ?? '';
      assert.ok(text.includes(`\n\n${TOKEN}\n\n`), 'the whole token on a line of its own');
      assert.ok(text.includes('This is an automated message from the Example Server at: https://app.example.org.'));
      assert.ok(text.includes('We received an account sign up request for: jane@example.org. This request'));
      assert.ok(text.includes('\n\ntest agent\n\nfrom the IP address: 198.51.100.20.'), 'the session UA and IP');
      assert.ok(text.includes('into the account verification form at: https://app.example.org/users/verify\n'));
      assert.ok(text.includes(`\n\n${formatDateTime(now + 900_000)} (UTC time)\n\n`), 'the expiry');
      assert.ok(text.endsWith('Thanks,\nExample Server admins\nhttps://app.example.org\n'));
      const html = typeof parsed.html === 'string' ? parsed.html : '';
      assert.ok(html.includes(`>${TOKEN}</code>`), 'the whole token in the HTML');
      assert.ok(html.includes('<a href="https://app.example.org/users/verify">'), 'the link in the HTML');
    });

    it('refuses alike, recording and sending nothing', async () => {
      const created = await signUp('ines@example.org');
      const verified = await signUp('vera@example.org');
      await markVerified(server, verified.user_id);
      const session = await openSession(server);
      const base = { created_info: created, account_verify_url: '/verify' };
      const cases: Array<[FailureCode, Record<string, unknown>]> = [
        [
          'email_ineligible',
          { ...common('ines@example.org', session), ...base, created_info: { ...created, send_verification: false } },
        ],
        [
          'email_ineligible',
          { ...common('ines@example.org', session), ...base, created_info: { ...created, user_id: 1 } },
        ],
        ['email_ineligible', { ...common('nobody-here@example.org', session), ...base }],
        ['email_ineligible', { ...common('vera@example.org', session), ...base, created_info: verified }],
        ['session_not_found', { ...common('ines@example.org', 'x'.repeat(43)), ...base }],
        [
          'email_link_refused',
          { ...common('ines@example.org', session), ...base, account_verify_url: 'https://evil.example/' },
        ],
        ['email_link_refused', { ...common('ines@example.org', session), ...base, account_verify_url: '/../../x' }],
        [
          'email_link_refused',
          { ...common('ines@example.org', session), ...base, server_baseurl: 'javascript:alert(1)' },
        ],
        [
          'email_header_refused',
          { ...common('ines@example.org', session), ...base, server_name: 'Ex\r\nBcc: v@example.org' },
        ],
        ['email_header_refused', { ...common('ines@example.org\nBcc: v@example.org', session), ...base }],
      ];
      const connections = sink.connections();
      const marks = await sentTimes(server, created.user_id);
      for (const [reason, body] of cases) {
        assertRefused(await server.call('user-sendemail-signup', body), reason);
      }
      assert.equal(sink.connections(), connections, 'no mail server was contacted');
      assert.deepEqual(await sentTimes(server, created.user_id), marks);
    });
  });

  describe('user-sendemail-forgotpass', () => {
    const forgot = (email: string, session: string, extra: Record<string, unknown> = {}) =>
      server.call('user-sendemail-forgotpass', { ...common(email, session), password_forgot_url: 'reset', ...extra });

    it('sends to an active, verified account at most once per 24 hours', async () => {
      const created = await signUp('fred@example.org');
      const userId = created.user_id;
      await markVerified(server, userId);
      const session = await openSession(server);

      // A created_info sent anyway is ignored.
      const first = await forgot('fred@example.org', session, { created_info: { send_verification: false } });
      assert.equal(first.success, true, JSON.stringify(first));
      const sentAt = server.clock.now();
      assert.deepEqual(first.response, {
        user_id: userId,
        email_address: 'fred@example.org',
        emailforgotpass_sent_datetime: formatDateTime(sentAt),
      });
      const [mail] = sentTo(sink, 'fred@example.org');
      assert.equal(mail?.parsed.subject, '[Example Server] Please verify your password reset request');
      assert.ok(mail.parsed.text?.includes(`\n\n${TOKEN}\n\n`));
      assert.ok(mail.parsed.text?.includes('into the password reset form at: https://app.example.org/reset\n'));

      server.clock.advance(DAY);
      assertRefused(await forgot('fred@example.org', session), 'email_window');
      assert.equal((await sentTimes(server, userId)).forgot, sentAt);
      assert.equal(sentTo(sink, 'fred@example.org').length, 1);

      server.clock.advance(1);
      assert.equal((await forgot('fred@example.org', session)).success, true);
      assert.equal(sentTo(sink, 'fred@example.org').length, 2);
    });

    it('sends one mail when two requests come at once', async () => {
      const created = await signUp('twice@example.org');
      await markVerified(server, created.user_id);
      const session = await openSession(server);
      const replies = await Promise.all([forgot('twice@example.org', session), forgot('twice@example.org', session)]);
      assert.deepEqual(replies.map((r) => r.success).sort(), [false, true]);
      assert.equal(sentTo(sink, 'twice@example.org').length, 1);
    });

    it('may send again at once after a successful password reset', async () => {
      const created = await signUp('reset@example.org');
      const userId = created.user_id;
      await markVerified(server, userId);
      const session = await openSession(server);
      assert.equal((await forgot('reset@example.org', session)).success, true);
      const reset = await server.call('user-resetpass-nosession', {
        email_address: 'reset@example.org',
        new_password: 'fresh-quartz-meadow-77',
        required_active: true,
      });
      assert.equal(reset.success, true, JSON.stringify(reset));
      assert.equal((await sentTimes(server, userId)).forgot, null);
      assert.equal((await forgot('reset@example.org', session)).success, true);
      assert.equal(sentTo(sink, 'reset@example.org').length, 2);
    });

    it('refuses unverified and unknown accounts alike', async () => {
      const created = await signUp('unverified@example.org');
      const session = await openSession(server);
      assertRefused(await forgot('unverified@example.org', session), 'email_ineligible');
      assertRefused(await forgot('ghost@example.org', session), 'email_ineligible');
      assertRefused(await forgot('admin@example.org', 'y'.repeat(43)), 'session_not_found');
      assert.equal((await sentTimes(server, created.user_id)).forgot, null);
      assert.equal(sentTo(sink, 'unverified@example.org').length, 0);
    });

    it('records nothing when the mail server refuses the recipient', async () => {
      const created = await signUp('refused@example.org');
      const userId = created.user_id;
      await markVerified(server, userId);
      const session = await openSession(server);
      assertRefused(await forgot('refused@example.org', session), 'smtp_rejected');
      assert.equal((await sentTimes(server, userId)).forgot, null);
    });
  });
});

describe('with a mail server that accepts TCP and never answers', () => {
  it('fails within the timeout of seconds and records nothing', async () => {
    const silent = await startSilentServer();
    const server = await startTestServer({ config: emailConfig(silent.port) });
    try {
      const created = await server.call('user-new', {
        email: 'slow@example.org',
        password: GOOD_PASSWORD,
        full_name: 'Jane Doe',
      });
      const userId = Number(created.response.user_id);
      await markVerified(server, userId);
      const session = await openSession(server);
      const started = Date.now();
      const reply = await server.call('user-sendemail-forgotpass', {
        ...common('slow@example.org', session),
        password_forgot_url: '/reset',
      });
      const elapsed = Date.now() - started;
      assertRefused(reply, 'smtp_timeout');
      assert.ok(elapsed < 8_000, `answered after ${elapsed} ms`);
      assert.equal((await sentTimes(server, userId)).forgot, null);
    } finally {
      await server.close();
      await silent.close();
    }
  });
});

describe('with a mail server that answers one byte at a time', () => {
  type MailAction = 'user-sendemail-signup' | 'user-sendemail-forgotpass';

  it('both mails fail at the deadline, record nothing, leave no connection open', { timeout: 20_000 }, async () => {
    const slow = await startDribblingServer(250);
    // The deadline is 30 s in production; a test shortens it, as the other timeouts.
    const server = await startTestServer({ config: emailConfig(slow.port, { sendMs: 1_500 }) });
    try {
      const signUp = async (email: string) => {
        const reply = await server.call('user-new', { email, password: GOOD_PASSWORD, full_name: 'Jane Doe' });
        return { info: reply.response, id: Number(reply.response.user_id) };
      };
      const timed = async (action: MailAction, body: Record<string, unknown>) => {
        const started = Date.now();
        const reply = await server.call(action, body);
        return { reply, elapsed: Date.now() - started };
      };
      const session = await openSession(server);
      const created = await signUp('dribble@example.org');
      const verified = await signUp('dribble-forgot@example.org');
      await markVerified(server, verified.id);
      const marks = [await sentTimes(server, created.id), await sentTimes(server, verified.id)];
      server.clock.advance(60_000);

      const signup = await timed('user-sendemail-signup', {
        ...common('dribble@example.org', session),
        created_info: created.info,
        account_verify_url: '/verify',
      });
      assertRefused(signup.reply, 'smtp_timeout');
      assert.ok(signup.elapsed < 4_000, `answered after ${signup.elapsed} ms`);
      // The server dribbles forever, so a socket left open never closes: 2 s only lets a busy machine
      // (test files run four at once) deliver the close.
      await slow.drained(2_000);

      const forgot = await timed('user-sendemail-forgotpass', {
        ...common('dribble-forgot@example.org', session),
        password_forgot_url: '/reset',
      });
      assertRefused(forgot.reply, 'smtp_timeout');
      assert.ok(forgot.elapsed < 4_000, `answered after ${forgot.elapsed} ms`);
      await slow.drained(2_000);

      assert.deepEqual([await sentTimes(server, created.id), await sentTimes(server, verified.id)], marks);
    } finally {
      await server.close();
      await slow.close();
    }
  });
});

describe('with a session whose user agent holds a paragraph of its own', () => {
  // 1,024 characters (the most session-new takes) of line breaks, separators, a bidi override, tabs.
  const PARAGRAPH =
    '\r\n\r\nURGENT: your account is compromised.\r\nCall +1 555 0100 now.\u2028\u2029\u202E\t\u0085Security team\n';
  const USER_AGENT = `Mozilla/5.0${PARAGRAPH.repeat(20)}`.slice(0, 1_024);
  const BREAKS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

  let server: TestServer;
  let sink: SmtpSink;
  before(async () => {
    sink = await startSink();
    server = await startTestServer({ config: emailConfig(sink.port) });
  });
  after(async () => {
    await server.close();
    await sink.close();
  });

  /** The browser's paragraph of the mail that reached `email`, in both bodies. */
  function browserShown(email: string): { text: string; html: string } {
    const [mail] = sentTo(sink, email);
    assert.ok(mail, 'one mail arrived');
    const text = /using the browser:\n\n([\s\S]*?)\n\nfrom the IP address/.exec(mail.parsed.text ?? '')?.[1];
    const html = /using the browser:<\/p>\n<p>([\s\S]*?)<\/p>\n<p>from the IP address/.exec(
      typeof mail.parsed.html === 'string' ? mail.parsed.html : '',
    )?.[1];
    assert.ok(text !== undefined && html !== undefined, 'the browser has its paragraph');
    return { text, html };
  }

  function assertOneShortLine({ text, html }: { text: string; html: string }): void {
    assert.ok(!BREAKS.test(text), `no control or line-break character: ${JSON.stringify(text)}`);
    assert.ok(Array.from(text).length <= 200, `at most 200 characters, not ${Array.from(text).length}`);
    assert.ok(text.startsWith('Mozilla/5.0 URGENT: your account is compromised. Call +1 555 0100 now. Security team'));
    assert.ok(text.endsWith('…'), 'cut with an ellipsis');
    assert.ok(!html.includes('<br>') && !BREAKS.test(html), `one line in the HTML too: ${JSON.stringify(html)}`);
  }

  it('the sign-up and forgot-password mails show it on one line of at most 200 characters', async () => {
    assert.equal(USER_AGENT.length, 1_024);
    const opened = await server.call('session-new', {
      ip_address: '198.51.100.20',
      user_agent: USER_AGENT,
      user_id: null,
      expires: 7,
      extra_info_json: {},
    });
    assert.ok(opened.success, JSON.stringify(opened));
    const session = opened.response.session_token;

    const created = await server.call('user-new', {
      email: 'agent@example.org',
      password: GOOD_PASSWORD,
      full_name: 'Jane Doe',
    });
    const signup = await server.call('user-sendemail-signup', {
      ...common('agent@example.org', session),
      created_info: created.response,
      account_verify_url: '/verify',
    });
    assert.equal(signup.success, true, JSON.stringify(signup));
    assertOneShortLine(browserShown('agent@example.org'));

    const verified = await server.call('user-new', {
      email: 'forgot@example.org',
      password: GOOD_PASSWORD,
      full_name: 'Jane Doe',
    });
    await markVerified(server, Number(verified.response.user_id));
    const forgot = await server.call('user-sendemail-forgotpass', {
      ...common('forgot@example.org', session),
      password_forgot_url: '/reset',
    });
    assert.equal(forgot.success, true, JSON.stringify(forgot));
    assertOneShortLine(browserShown('forgot@example.org'));
  });
});
