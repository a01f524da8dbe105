/**
 * Starts the example frontend (and, unless FRONTEND_MAIL_SINK=off, the local mail sink).
 *
 *   npx tsx examples/frontend/main.ts
 *
 * Settings (environment): AUTHSVC_URL (default http://127.0.0.1:13431/), AUTHSVC_SECRET (default: the
 * key `npm start` wrote to .authsvc/.authsvc-secret-key), FRONTEND_PORT (8080), FRONTEND_TLS_CERT and
 * FRONTEND_TLS_KEY (PEM files: serve HTTPS), FRONTEND_BASEURL (the URL browsers use, for mail links),
 * FRONTEND_KEY (the frontend's own secret, 32+ bytes as base64; default a random one per start, which
 * logs everybody out on restart), SINK_SMTP_PORT (2525), SINK_HTTP_PORT (8025).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { RequestListener } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
// The import an installed user writes. In this repository tsconfig.json maps it to src/client, so the
// example type-checks against, and runs with, the client of this checkout without a build.
import { createClient } from 'authsvc/client';
import { createFrontend } from './app.js';
import { startMailSink } from './mail-sink.js';

// eslint-disable-next-line no-restricted-properties -- the example's one reader of its settings
const env = process.env;
const setting = (name: string, fallback: string): string => {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? fallback : value;
};

const secret = env['AUTHSVC_SECRET'] ?? readFileSync('.authsvc/.authsvc-secret-key', 'utf8');
const authsvc = createClient({ url: setting('AUTHSVC_URL', 'http://127.0.0.1:13431/'), secret: secret.trim() });
const key = env['FRONTEND_KEY'] === undefined ? randomBytes(32) : Buffer.from(env['FRONTEND_KEY'], 'base64');
if (key.length < 32) throw new Error('FRONTEND_KEY must hold at least 32 bytes (base64)');

const certFile = env['FRONTEND_TLS_CERT'];
const keyFile = env['FRONTEND_TLS_KEY'];
const tls = certFile !== undefined && keyFile !== undefined;
const port = Number(setting('FRONTEND_PORT', '8080'));

if (setting('FRONTEND_MAIL_SINK', 'on') !== 'off') {
  const sink = await startMailSink({
    smtpPort: Number(setting('SINK_SMTP_PORT', '2525')),
    httpPort: Number(setting('SINK_HTTP_PORT', '8025')),
  });
  console.log(`mail sink: SMTP on 127.0.0.1:${sink.smtpPort}, mails shown at ${sink.httpUrl}`);
}

// The base URL is known only once listening (port 0 picks one), so the app is made in the handler's first call.
let handler: RequestListener | null = null;
const listener: RequestListener = (req, res) => {
  if (handler === null) res.writeHead(503).end();
  else handler(req, res);
};
const server = tls
  ? createTlsServer({ cert: readFileSync(certFile), key: readFileSync(keyFile), minVersion: 'TLSv1.2' }, listener)
  : createServer(listener);
server.listen(port, '127.0.0.1', () => {
  const actual = (server.address() as AddressInfo).port;
  const baseUrl = setting('FRONTEND_BASEURL', `${tls ? 'https' : 'http'}://127.0.0.1:${actual}`);
  const frontend = createFrontend({ authsvc, key, baseUrl, tls }).callback();
  handler = (req, res) => void frontend(req, res);
  console.log(`example frontend: ${baseUrl}/`);
});
