import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import { after, before, describe, it } from 'node:test';
import type { MailMessage, MailSettings } from '../../src/services/mail/mailer.js';
import { createSmtpMailer } from '../../src/services/mail/smtp.js';
import { selfSignedCertificate, startDribblingServer, startSilentServer, startSink } from './smtp-sink.js';
import type { SmtpSink } from './smtp-sink.js';

const message: MailMessage = {
  to: 'jane@example.org',
  subject: '[Example] Please verify your account sign up request',
  text: 'Hello,\n\nA plain body.\n',
  html: '<p>Hello,</p><p>An HTML body.</p>',
};

const settings = (sink: { host?: string; port: number }, extra: Partial<MailSettings> = {}): MailSettings => ({
  server: sink.host ?? '127.0.0.1',
  port: sink.port,
  user: '',
  pass: '',
  sender: 'Example <no-reply@example.org>',
  tlsCa: null,
  timeouts: { connectionMs: 1_000, greetingMs: 1_000, socketMs: 2_000 },
  ...extra,
});

const certificate = selfSignedCertificate();

/** An address of this machine that is not loopback, or null. */
function externalAddress(): string | null {
  for (const list of Object.values(networkInterfaces())) {
    for (const entry of list ?? []) if (!entry.internal && entry.family === 'IPv4') return entry.address;
  }
  return null;
}

describe('the SMTP mailer (nodemailer) against a real smtp-server', () => {
  describe('plain on loopback', () => {
    let sink: SmtpSink;
    before(async () => {
      sink = await startSink({ refuse: (address) => address.startsWith('nobody@') });
    });
    after(() => sink.close());

    it('delivers both bodies with the headers, from the configured sender', async () => {
      const sent = await createSmtpMailer(settings(sink)).send(message);
      assert.equal(sent.ok, true, JSON.stringify(sent));
      const [mail] = sink.received;
      assert.ok(mail);
      assert.equal(mail.parsed.subject, message.subject);
      assert.equal(mail.parsed.from?.text, '"Example" <no-reply@example.org>');
      assert.deepEqual(mail.envelopeTo, ['jane@example.org']);
      assert.equal(mail.parsed.headers.get('sender') !== undefined, true);
      assert.equal(mail.parsed.text, message.text);
      assert.equal(mail.parsed.html, message.html);
      assert.ok(mail.parsed.messageId, 'a Message-ID');
      assert.ok(mail.parsed.date instanceof Date, 'a Date');
      assert.equal(mail.secure, false);
    });

    it('reports a refused recipient as smtp_rejected', async () => {
      const sent = await createSmtpMailer(settings(sink)).send({ ...message, to: 'nobody@example.org' });
      assert.deepEqual(sent.ok ? null : sent.failure, 'smtp_rejected');
    });

    it('refuses control characters in any header before connecting', async () => {
      const before = sink.connections();
      const mailer = createSmtpMailer(settings(sink));
      for (const bad of [
        { ...message, subject: 'Hi\r\nBcc: victim@example.org' },
        { ...message, to: 'jane@example.org\r\nBcc: victim@example.org' },
        { ...message, to: 'jane@example.org, victim@example.org' },
        { ...message, subject: 'tab\tseparated' },
      ]) {
        const sent = await mailer.send(bad);
        assert.equal(sent.ok ? null : sent.failure, 'email_header_refused', JSON.stringify(bad));
      }
      const badSender = createSmtpMailer(settings(sink, { sender: 'Ex <a@example.org>\r\nBcc: v@example.org' }));
      assert.equal((await badSender.send(message)).ok, false);
      assert.equal(sink.connections(), before, 'no connection was made');
    });
  });

  describe('STARTTLS with a self-signed certificate', () => {
    let sink: SmtpSink;
    before(async () => {
      sink = await startSink({ tls: certificate });
    });
    after(() => sink.close());

    it('upgrades whenever offered, trusting the certificate through emailtlsca', async () => {
      const sent = await createSmtpMailer(settings(sink, { tlsCa: certificate.cert })).send(message);
      assert.equal(sent.ok, true, JSON.stringify(sent));
      assert.equal(sink.received.at(-1)?.secure, true);
    });

    it('does not fall back to plaintext when the certificate is not trusted', async () => {
      const count = sink.received.length;
      const sent = await createSmtpMailer(settings(sink)).send(message);
      assert.equal(sent.ok ? null : sent.failure, 'smtp_tls');
      assert.equal(sink.received.length, count);
    });
  });

  describe('AUTH with user and password', () => {
    let sink: SmtpSink;
    before(async () => {
      sink = await startSink({ tls: certificate, auth: { user: 'mailer', pass: 's3cret' } });
    });
    after(() => sink.close());

    it('logs in over TLS and sends', async () => {
      const mailer = createSmtpMailer(settings(sink, { tlsCa: certificate.cert, user: 'mailer', pass: 's3cret' }));
      const sent = await mailer.send(message);
      assert.equal(sent.ok, true, JSON.stringify(sent));
      assert.equal(sink.received.at(-1)?.user, 'mailer');
    });

    it('reports wrong credentials as smtp_auth', async () => {
      const mailer = createSmtpMailer(settings(sink, { tlsCa: certificate.cert, user: 'mailer', pass: 'wrong' }));
      const sent = await mailer.send(message);
      assert.equal(sent.ok ? null : sent.failure, 'smtp_auth');
    });

    it('does not log in when only one of user and password is set', async () => {
      const mailer = createSmtpMailer(settings(sink, { tlsCa: certificate.cert, user: 'mailer', pass: '' }));
      const sent = await mailer.send(message);
      // The server requires AUTH, so the send is refused: no credentials were offered.
      assert.equal(sent.ok, false);
    });
  });

  describe('credentials to a server that is not loopback', () => {
    const address = externalAddress();
    let sink: SmtpSink | null = null;
    before(async () => {
      if (address !== null) sink = await startSink({ host: address });
    });
    after(() => sink?.close());

    it('refuses to send them unencrypted when the server offers no STARTTLS', { skip: address === null }, async () => {
      assert.ok(sink);
      const mailer = createSmtpMailer(settings(sink, { user: 'mailer', pass: 's3cret' }));
      const sent = await mailer.send(message);
      assert.equal(sent.ok ? null : sent.failure, 'smtp_insecure_auth', JSON.stringify(sent));
      assert.equal(sink.received.length, 0);
    });
  });

  describe('a server that accepts TCP and never answers', () => {
    it('fails within the greeting timeout', async () => {
      const silent = await startSilentServer();
      try {
        const started = Date.now();
        const sent = await createSmtpMailer(settings({ port: silent.port })).send(message);
        const elapsed = Date.now() - started;
        assert.equal(sent.ok ? null : sent.failure, 'smtp_timeout', JSON.stringify(sent));
        assert.ok(elapsed < 3_000, `answered after ${elapsed} ms`);
      } finally {
        await silent.close();
      }
    });
  });

  describe('a server that answers one byte at a time', () => {
    // Each byte comes well within the socket timeout, so only the overall deadline ends the send.
    it('fails at the overall deadline, closing the connection', { timeout: 15_000 }, async () => {
      const slow = await startDribblingServer(250);
      try {
        const mailer = createSmtpMailer(
          settings(
            { port: slow.port },
            { timeouts: { connectionMs: 1_000, greetingMs: 1_000, socketMs: 2_000, sendMs: 1_500 } },
          ),
        );
        const started = Date.now();
        const sent = await mailer.send(message);
        const elapsed = Date.now() - started;
        assert.equal(sent.ok ? null : sent.failure, 'smtp_timeout', JSON.stringify(sent));
        assert.ok(elapsed >= 1_400 && elapsed < 4_000, `answered after ${elapsed} ms`);
        // The server goes on writing after a FIN: only a destroyed socket ends the connection.
        await slow.drained(500);
      } finally {
        await slow.close();
      }
    });
  });

  it('reports a closed port as smtp_unreachable', async () => {
    const silent = await startSilentServer();
    const port = silent.port;
    await silent.close();
    const sent = await createSmtpMailer(settings({ port })).send(message);
    assert.equal(sent.ok ? null : sent.failure, 'smtp_unreachable');
  });
});
