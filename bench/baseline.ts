/**
 * The floor: the least any Node server speaking this protocol must do per request. A bare node:http
 * server that reads the body, base64-decodes it, verifies and decrypts the Fernet token, parses the
 * JSON, builds a fixed reply (echoing `reqid`, as every reply must), encrypts it and answers. No cache,
 * no log, no database, no framework.
 *
 * It imports nothing from src/ on purpose: authsvc's own envelope code must not be able to make the
 * floor slower (or faster) than plain node:crypto. `npm run bench` transpiles this file and runs it
 * with plain `node` (no TypeScript loader in the measured process).
 *   AUTHSVC_BENCH_SECRET=<fernet key> AUTHSVC_BENCH_PORT=<port> node baseline.mjs
 * It prints one line `{"listening":<port>}` when it accepts requests.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const keyBytes = Buffer.from(process.env['AUTHSVC_BENCH_SECRET'] ?? '', 'base64url');
if (keyBytes.length !== 32) throw new Error('AUTHSVC_BENCH_SECRET must be a Fernet key');
const signing = keyBytes.subarray(0, 16);
const encryption = keyBytes.subarray(16);
const port = Number(process.env['AUTHSVC_BENCH_PORT'] ?? 0);
/** The same freshness window authsvc applies by default. */
const TTL_SECONDS = 120;
const SKEW_SECONDS = 60;

/** Body (standard base64 of the Fernet token) → the request's JSON, or null when it is not ours. */
function open(body: string): Record<string, unknown> | null {
  const token = Buffer.from(body, 'base64').toString('latin1');
  const raw = Buffer.from(token, 'base64url');
  if (raw.length < 73 || raw[0] !== 0x80 || (raw.length - 57) % 16 !== 0) return null;
  const signed = raw.subarray(0, raw.length - 32);
  const mac = createHmac('sha256', signing).update(signed).digest();
  if (!timingSafeEqual(mac, raw.subarray(raw.length - 32))) return null;
  const age = Math.floor(Date.now() / 1000) - Number(raw.readBigUInt64BE(1));
  if (age > TTL_SECONDS || -age > SKEW_SECONDS) return null;
  const decipher = createDecipheriv('aes-128-cbc', encryption, raw.subarray(9, 25));
  const plain = Buffer.concat([decipher.update(raw.subarray(25, raw.length - 32)), decipher.final()]);
  const value: unknown = JSON.parse(plain.toString('utf8'));
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : null;
}

/** JSON → Fernet token → standard base64. */
function seal(value: unknown): string {
  const header = Buffer.alloc(25);
  header[0] = 0x80;
  header.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 1000)), 1);
  const iv = randomBytes(16);
  header.set(iv, 9);
  const cipher = createCipheriv('aes-128-cbc', encryption, iv);
  const signed = Buffer.concat([header, cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  const token = Buffer.concat([signed, createHmac('sha256', signing).update(signed).digest()]).toString('base64url');
  // Fernet tokens are padded base64url; Node's base64url omits the padding.
  const padded = token + '='.repeat((4 - (token.length % 4)) % 4);
  return Buffer.from(padded, 'latin1').toString('base64');
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    let request: Record<string, unknown> | null;
    try {
      request = open(Buffer.concat(chunks).toString('latin1'));
    } catch {
      request = null;
    }
    if (request === null) {
      res.writeHead(401, { 'content-type': 'text/plain; charset=utf-8' }).end('not ours\n');
      return;
    }
    const reply = seal({
      success: true,
      response: { session_token: 'floor', expires: '2099-01-01T00:00:00.000000Z' },
      messages: ['Floor reply.'],
      reqid: request['reqid'],
    });
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(reply);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ listening: typeof address === 'object' && address ? address.port : port })}\n`,
  );
});
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  setImmediate(() => process.exit(0));
});
