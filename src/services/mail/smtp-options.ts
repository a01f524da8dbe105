/**
 * The transport security rules (docs/design.md#mail), as nodemailer options:
 * - port 465 is implicit TLS; any other port upgrades with STARTTLS whenever the server offers it
 *   (nodemailer's default), and a failed upgrade fails the send rather than going on in plaintext;
 * - credentials are sent only when both `emailuser` and `emailpass` are set, and to a server other
 *   than loopback only over TLS (`requireTLS`: a server that does not offer STARTTLS is refused);
 * - `emailtlsca` adds a private CA to the system's roots instead of turning verification off;
 * - timeouts of seconds, not nodemailer's minutes, so a dead server cannot hold a request, and one
 *   deadline for the whole send (smtp.ts), so a slow one cannot either (docs/design.md#mail).
 */
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import type { SMTPTransportOptions } from 'nodemailer';
import type { MailSettings, MailTimeouts } from './mailer.js';

export const DEFAULT_TIMEOUTS: MailTimeouts = {
  connectionMs: 5_000,
  greetingMs: 5_000,
  socketMs: 15_000,
  sendMs: 30_000,
};

export function mailTimeouts(settings: MailSettings): MailTimeouts {
  return { ...DEFAULT_TIMEOUTS, ...settings.timeouts };
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|::1|\[::1\])$/i;

export function isLoopback(host: string): boolean {
  return LOOPBACK.test(host.trim());
}

export function authenticates(settings: MailSettings): boolean {
  return settings.user !== '' && settings.pass !== '';
}

/** True when this configuration must not go on without TLS (credentials to a remote server). */
export function requiresTls(settings: MailSettings): boolean {
  return authenticates(settings) && !isLoopback(settings.server) && settings.port !== 465;
}

export function transportOptions(settings: MailSettings): SMTPTransportOptions {
  const timeouts = mailTimeouts(settings);
  return {
    host: settings.server,
    port: settings.port,
    secure: settings.port === 465,
    requireTLS: requiresTls(settings),
    ...(authenticates(settings) ? { auth: { user: settings.user, pass: settings.pass } } : {}),
    tls: {
      // SNI carries host names only (RFC 6066); an IP address is still checked against the certificate.
      ...(isIP(settings.server) === 0 ? { servername: settings.server } : {}),
      minVersion: 'TLSv1.2',
      ...(settings.tlsCa === null ? {} : { ca: [...rootCertificates, settings.tlsCa.toString('utf8')] }),
    },
    connectionTimeout: timeouts.connectionMs,
    greetingTimeout: timeouts.greetingMs,
    socketTimeout: timeouts.socketMs,
    dnsTimeout: timeouts.connectionMs,
    // Closing destroys the socket rather than ending it and waiting (5 s by default) for the server's
    // FIN: after the deadline a server may go on writing, and after a send nothing is left to say.
    socketCloseTimeout: 0,
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}
