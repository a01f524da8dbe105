/**
 * The Mailer port: what the email actions need from a mail service. The composition root injects
 * the nodemailer adapter (smtp.ts); a send never throws, it answers with the class of its failure.
 */
import type { FailureCode } from '../../protocol/failure-codes.js';

/** One message, already composed: both bodies carry the same words. */
export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

/** Why a mail was not sent: a header refused before connecting, or the SMTP error class. */
export type MailFailure = Extract<
  FailureCode,
  | 'email_header_refused'
  | 'smtp_insecure_auth'
  | 'smtp_unreachable'
  | 'smtp_timeout'
  | 'smtp_tls'
  | 'smtp_auth'
  | 'smtp_rejected'
  | 'smtp_failed'
>;

export type SendResult =
  | { readonly ok: true; readonly elapsedMs: number }
  | {
      readonly ok: false;
      readonly failure: MailFailure;
      /** For the operator's log only: the server's reply code and the library's error code. */
      readonly detail: string;
    };

export interface Mailer {
  send(message: MailMessage): Promise<SendResult>;
}

/** Where and how to send, decoded from the `email*` configuration items. */
export interface MailSettings {
  readonly server: string;
  readonly port: number;
  /** Authentication happens only when both are non-empty. */
  readonly user: string;
  readonly pass: string;
  /** `Name <address>` or a bare address. */
  readonly sender: string;
  /** PEM certificate(s) trusted besides the system's (a private CA, a self-signed test server). */
  readonly tlsCa: Buffer | null;
  /** Milliseconds; the defaults (smtp-options.ts) are seconds, so a dead server cannot hold a request. */
  readonly timeouts?: Partial<MailTimeouts>;
}

export interface MailTimeouts {
  readonly connectionMs: number;
  readonly greetingMs: number;
  /** Silence between two reads: a server answering a byte at a time resets it with each byte. */
  readonly socketMs: number;
  /** The whole send, from the first connection attempt to the server's last reply (docs/design.md#mail). */
  readonly sendMs: number;
}
