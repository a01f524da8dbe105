/**
 * The nodemailer adapter of the Mailer port. Headers are checked before any connection is made
 * (headers.ts); a failed send answers with its SMTP error class, never throws. Each send has one
 * overall deadline (docs/design.md#mail): the timeouts bound silence, and a server answering a
 * byte every few seconds is never silent for long.
 */
import type { Transporter } from 'nodemailer';
import { isSafeAddress, isSafeHeaderText, parseMailbox } from './headers.js';
import type { MailFailure, Mailer, MailMessage, MailSettings, SendResult } from './mailer.js';
import { mailTimeouts, requiresTls, transportOptions } from './smtp-options.js';

/** The configuration's documented default. */
const DEFAULT_SENDER = 'authsvc <authsvc@localhost>';

interface SmtpError {
  readonly code?: unknown;
  readonly responseCode?: unknown;
  /** The socket's own code, e.g. DEPTH_ZERO_SELF_SIGNED_CERT or ERR_TLS_CERT_ALTNAME_INVALID. */
  readonly originalCode?: unknown;
}

/** A socket error raised by the TLS layer (certificate checks, handshake). */
const isTlsSocketError = (code: unknown): boolean =>
  typeof code === 'string' && /CERT|TLS|SSL|SIGNATURE|ISSUER/.test(code);

/** nodemailer's error codes, grouped into the classes the actions report. */
export function classify(error: unknown, tlsRequired: boolean): MailFailure {
  const { code, responseCode, originalCode } = (error ?? {}) as SmtpError;
  if (code === 'ESOCKET' && isTlsSocketError(originalCode)) return 'smtp_tls';
  switch (code) {
    case 'ECONNECTION':
    case 'ESOCKET':
    case 'EDNS':
      return 'smtp_unreachable';
    case 'ETIMEDOUT':
      return 'smtp_timeout';
    case 'ETLS':
      // A STARTTLS the server answered with an SMTP error: it does not offer TLS.
      return tlsRequired && typeof responseCode === 'number' ? 'smtp_insecure_auth' : 'smtp_tls';
    case 'EAUTH':
    case 'ENOAUTH':
      return 'smtp_auth';
    case 'EENVELOPE':
    case 'EMESSAGE':
      return 'smtp_rejected';
    default:
      return 'smtp_failed';
  }
}

function describe(error: unknown): string {
  const { code, responseCode, originalCode } = (error ?? {}) as SmtpError;
  const text = (value: unknown): string =>
    typeof value === 'string' || typeof value === 'number' ? String(value) : 'none';
  return `code=${text(code)} socket=${text(originalCode)} response=${text(responseCode)}`;
}

export function createSmtpMailer(settings: MailSettings, now: () => number = () => performance.now()): Mailer {
  // nodemailer (about 40 modules) is loaded by the first email sent, not by every server that may never send one.
  let transport: Promise<Transporter> | null = null;
  const transportOnce = (): Promise<Transporter> =>
    (transport ??= import('nodemailer').then(({ createTransport }) => createTransport(transportOptions(settings))));
  const sender = parseMailbox(settings.sender === '' ? DEFAULT_SENDER : settings.sender);
  const tlsRequired = requiresTls(settings);
  const deadlineMs = mailTimeouts(settings).sendMs;

  return {
    async send(message: MailMessage): Promise<SendResult> {
      if (sender === null || !isSafeAddress(message.to) || !isSafeHeaderText(message.subject)) {
        return { ok: false, failure: 'email_header_refused', detail: 'a header item holds control characters' };
      }
      const started = now();
      // Aborting makes nodemailer fail the send at once and close (destroy) its connection.
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(), deadlineMs);
      try {
        await (
          await transportOnce()
        ).sendMail({
          from: { name: sender.name, address: sender.address },
          sender: sender.address,
          to: message.to,
          subject: message.subject,
          text: message.text,
          html: message.html,
          signal: deadline.signal,
        });
        return { ok: true, elapsedMs: now() - started };
      } catch (error) {
        if (deadline.signal.aborted) {
          return { ok: false, failure: 'smtp_timeout', detail: `code=DEADLINE ms=${deadlineMs}` };
        }
        return { ok: false, failure: classify(error, tlsRequired), detail: describe(error) };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
