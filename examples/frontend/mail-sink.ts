/**
 * A local mail sink for trying the example frontend: an SMTP server (smtp-server) that accepts every
 * message without authentication or TLS, keeps the last ones in memory, and shows them on a small web
 * page (and as JSON at /mails.json). It listens on the loopback address only: it is for development,
 * never for real mail.
 *
 * Run on its own: `npx tsx examples/frontend/mail-sink.ts` (SINK_SMTP_PORT, SINK_HTTP_PORT); main.ts
 * starts one in the same process unless FRONTEND_MAIL_SINK=off.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { escapeHtml } from './html.js';

export interface SinkMail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly receivedAt: string;
}

export interface MailSink {
  readonly smtpPort: number;
  readonly httpUrl: string;
  readonly mails: readonly SinkMail[];
  close(): Promise<void>;
}

/** The text, escaped, with its web addresses as links (escaped too: an address cannot leave its href). */
const linked = (text: string): string =>
  escapeHtml(text).replace(/\bhttps?:\/\/[^\s<]+/g, (url) => `<a href="${url}">${url}</a>`);

/** Only the newest messages are kept, so a long session cannot fill the memory. */
const KEEP = 100;

export async function startMailSink(options: { smtpPort: number; httpPort: number }): Promise<MailSink> {
  const mails: SinkMail[] = [];
  const smtp = new SMTPServer({
    logger: false,
    disableReverseLookup: true,
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    size: 1024 * 1024,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          const to = session.envelope.rcptTo.map((r) => r.address).join(', ');
          mails.unshift({
            to,
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            receivedAt: new Date().toISOString(),
          });
          mails.length = Math.min(mails.length, KEEP);
          console.log(`mail-sink: received "${parsed.subject ?? ''}" for ${to}`);
          callback();
        })
        .catch((error: unknown) => callback(error instanceof Error ? error : new Error(String(error))));
    },
  });
  await new Promise<void>((resolve, reject) => {
    smtp.once('error', reject);
    smtp.listen(options.smtpPort, '127.0.0.1', () => resolve());
  });
  const http = createServer((req, res) => {
    if (req.url === '/mails.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(mails));
      return;
    }
    const items = mails.map(
      (m) =>
        `<article class="mail"><h2>${escapeHtml(m.subject)}</h2><p>To: ${escapeHtml(m.to)} — ${escapeHtml(m.receivedAt)}</p>` +
        `<pre>${linked(m.text)}</pre></article>`,
    );
    res
      .writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': "default-src 'none'",
        'cache-control': 'no-store',
      })
      .end(
        `<!doctype html><html><head><meta charset="utf-8"><title>Mail sink</title></head><body>` +
          `<h1>Mail sink</h1>${items.length === 0 ? '<p>No mail yet.</p>' : items.join('\n')}</body></html>`,
      );
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.httpPort, '127.0.0.1', () => resolve());
  });
  const smtpAddress = smtp.server.address() as AddressInfo;
  const httpAddress = http.address() as AddressInfo;
  return {
    smtpPort: smtpAddress.port,
    httpUrl: `http://127.0.0.1:${httpAddress.port}/`,
    mails,
    close: () =>
      Promise.all([
        new Promise<void>((resolve) => smtp.close(() => resolve())),
        new Promise<void>((resolve) => http.close(() => resolve())),
      ]).then(() => undefined),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // eslint-disable-next-line no-restricted-properties -- a script's own settings
  const env = process.env;
  const sink = await startMailSink({
    smtpPort: Number(env['SINK_SMTP_PORT'] ?? 2525),
    httpPort: Number(env['SINK_HTTP_PORT'] ?? 8025),
  });
  console.log(`mail-sink: SMTP on 127.0.0.1:${sink.smtpPort}, mails shown at ${sink.httpUrl}`);
}
