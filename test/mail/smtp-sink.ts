/**
 * A real SMTP server for the mail tests (`smtp-server`), keeping every message it accepted parsed
 * by `mailparser`, plus a server that accepts TCP and never answers, one that answers one byte at a
 * time, and a self-signed certificate made with the `openssl` CLI.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import type { ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface Received {
  readonly raw: string;
  readonly parsed: ParsedMail;
  readonly envelopeTo: readonly string[];
  readonly secure: boolean;
  readonly user: string | null;
}

export interface SinkOptions {
  /** Offer STARTTLS with this certificate (else no TLS at all). */
  readonly tls?: { readonly key: Buffer; readonly cert: Buffer };
  /** Require AUTH PLAIN/LOGIN with these credentials. */
  readonly auth?: { readonly user: string; readonly pass: string };
  /** Addresses refused at RCPT TO (550). */
  readonly refuse?: (address: string) => boolean;
  /** Listen here (default 127.0.0.1). */
  readonly host?: string;
}

export interface SmtpSink {
  readonly host: string;
  readonly port: number;
  readonly received: Received[];
  /** TCP connections made to this server. */
  connections(): number;
  close(): Promise<void>;
}

export async function startSink(options: SinkOptions = {}): Promise<SmtpSink> {
  const received: Received[] = [];
  let connections = 0;
  const server = new SMTPServer({
    logger: false,
    disableReverseLookup: true,
    ...(options.tls === undefined
      ? { disabledCommands: ['STARTTLS'] }
      : { key: options.tls.key, cert: options.tls.cert }),
    authOptional: options.auth === undefined,
    allowInsecureAuth: false,
    onConnect(_session, callback) {
      connections++;
      callback();
    },
    onAuth(auth, _session, callback) {
      const good = auth.username === options.auth?.user && auth.password === options.auth?.pass;
      callback(good ? null : new Error('Invalid username or password'), good ? { user: auth.username } : undefined);
    },
    onRcptTo(address, _session, callback) {
      if (options.refuse?.(address.address)) {
        callback(Object.assign(new Error('No such user here'), { responseCode: 550 }));
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        simpleParser(raw)
          .then((parsed) => {
            received.push({
              raw: raw.toString('utf8'),
              parsed,
              envelopeTo: session.envelope.rcptTo.map((r) => r.address),
              secure: session.secure,
              user: typeof session.user === 'string' ? session.user : null,
            });
            callback();
          })
          .catch((error: unknown) => callback(error as Error));
      });
    },
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    host,
    port,
    received,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A server that accepts connections and never says a word. */
export async function startSilentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface DribblingServer {
  readonly port: number;
  /** Connections still open on the server's side. */
  openSockets(): number;
  /** Resolves once no connection is open (or rejects after `withinMs`). */
  drained(withinMs: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A slow SMTP server: the greeting at once, then every reply one byte every `intervalMs` (each byte
 * resets an idle timer, so only an overall deadline ends the send). It answers EHLO without
 * extensions (no STARTTLS, no PIPELINING), MAIL, RCPT, DATA and the message's end, in that order.
 */
export async function startDribblingServer(intervalMs: number): Promise<DribblingServer> {
  const sockets = new Set<Socket>();
  // allowHalfOpen: like a hostile server, it goes on writing after the client's FIN; only the client
  // destroying its socket ends the connection.
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    const timers = new Set<NodeJS.Timeout>();
    socket.on('close', () => {
      sockets.delete(socket);
      for (const timer of timers) clearInterval(timer);
    });
    socket.on('error', () => socket.destroy());
    const dribble = (reply: string): void => {
      let next = 0;
      const timer = setInterval(() => {
        if (socket.destroyed || next >= reply.length) {
          clearInterval(timer);
          timers.delete(timer);
          return;
        }
        socket.write(reply.charAt(next++));
      }, intervalMs);
      timers.add(timer);
    };
    let inData = false;
    let pending = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      pending += chunk;
      if (inData) {
        const end = pending.indexOf('\r\n.\r\n');
        if (end === -1) return;
        pending = pending.slice(end + 5);
        inData = false;
        dribble('250 2.0.0 queued\r\n');
      }
      let eol: number;
      while (!inData && (eol = pending.indexOf('\r\n')) !== -1) {
        const verb = pending.slice(0, eol).split(' ', 1)[0]?.toUpperCase() ?? '';
        pending = pending.slice(eol + 2);
        if (verb === 'DATA') {
          inData = true;
          dribble('354 go ahead\r\n');
        } else if (verb === 'QUIT') {
          dribble('221 bye\r\n');
        } else {
          dribble(verb === 'EHLO' || verb === 'HELO' ? '250 slow.test\r\n' : '250 2.1.0 ok\r\n');
        }
      }
    });
    socket.write('220 slow.test ESMTP\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    openSockets: () => sockets.size,
    async drained(withinMs) {
      const until = Date.now() + withinMs;
      while (sockets.size > 0) {
        if (Date.now() > until) throw new Error(`${sockets.size} connection(s) still open after ${withinMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A self-signed certificate for localhost and 127.0.0.1 (it is its own CA). */
export function selfSignedCertificate(): { key: Buffer; cert: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'authsvc-smtp-cert-'));
  try {
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '2',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-addext',
        'basicConstraints=critical,CA:TRUE',
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(key), cert: readFileSync(cert) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
