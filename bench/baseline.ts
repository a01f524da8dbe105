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
 *
 * With AUTHSVC_BENCH_STORE=read or write (and AUTHSVC_BENCH_REQUIRE_FROM=<a package.json that can
 * require better-sqlite3>; the database goes in AUTHSVC_BENCH_DB_DIR or a new temporary folder), it also does what every authsvc read or write does besides the protocol,
 * and nothing else: `read` runs session-exists's query (a session joined with its user, by token hash,
 * prepared once) and answers with the row; `write` inserts a session as session-new does (one prepared
 * INSERT … SELECT, its own commit); both write one JSON log line per request to stdout, batched once
 * per event-loop turn. Same schema, indexes and pragmas as authsvc's SQLite store. The floor of a Node
 * server that stores sessions in SQLite and logs its requests, not of the protocol alone.
 * AUTHSVC_BENCH_FRAMEWORK=koa serves the same answers through Koa and @koa/router (koaHandler).
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { RequestListener } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

/** What a request does besides the protocol: nothing (the floor), or a database read or write. */
type Work = (request: Record<string, unknown>) => Record<string, unknown>;

interface Statement {
  get(...bindings: unknown[]): unknown;
  run(...bindings: unknown[]): { changes: number };
}
interface SqliteDb {
  pragma(text: string): unknown;
  exec(sql: string): unknown;
  prepare(sql: string): Statement;
}

/** authsvc's tables as its migrations make them on SQLite (users and sessions only). */
const SCHEMA = `
CREATE TABLE users (user_id integer not null primary key autoincrement, system_id varchar(50) not null, full_name varchar(280) null, password text not null, email varchar(280) not null, email_verified boolean not null default '0', is_active boolean not null default '0', user_role varchar(100) not null, previous_role varchar(100) null, extra_info text null, created_on bigint not null, last_updated bigint not null, last_login_try bigint null, last_login_success bigint null, failed_login_tries integer not null default '0', locked_until bigint null, emailverify_sent_datetime bigint null, emailforgotpass_sent_datetime bigint null, emailchangepass_sent_datetime bigint null, credential_generation integer not null default '0');
CREATE UNIQUE INDEX users_system_id_unique ON users (system_id);
CREATE INDEX users_full_name_index ON users (full_name);
CREATE UNIQUE INDEX users_email_unique ON users (email);
CREATE INDEX users_is_active_index ON users (is_active);
CREATE INDEX users_user_role_index ON users (user_role);
CREATE TABLE sessions (token_hash varchar(64), user_id integer not null, ip_address varchar(64) not null, user_agent varchar(1024) not null, created bigint not null, expires bigint not null, extra_info_json text not null, foreign key(user_id) references users(user_id) on delete CASCADE, primary key (token_hash));
CREATE INDEX sessions_user_id_index ON sessions (user_id);
CREATE INDEX sessions_expires_index ON sessions (expires);
`;

function storeWork(kind: string): Work {
  const from = process.env['AUTHSVC_BENCH_REQUIRE_FROM'];
  if (from === undefined) throw new Error('AUTHSVC_BENCH_STORE needs AUTHSVC_BENCH_REQUIRE_FROM');
  const Driver = createRequire(from)('better-sqlite3') as new (file: string) => SqliteDb;
  const dir = process.env['AUTHSVC_BENCH_DB_DIR'] ?? mkdtempSync(join(tmpdir(), 'authsvc-floor-db-'));
  const db = new Driver(join(dir, 'floor.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.exec(SCHEMA);
  const now = Date.now();
  db.prepare(
    'INSERT INTO users (system_id, full_name, password, email, email_verified, is_active, user_role, extra_info, created_on, last_updated) VALUES (?, ?, ?, ?, 1, 1, ?, ?, ?, ?)',
  ).run(
    '0f1e2d3c-floor',
    'Floor Admin',
    '$argon2id$v=19$m=19456,t=2,p=1$' + 'x'.repeat(66),
    'admin@floor.example',
    'superuser',
    '{}',
    now,
    now,
  );
  const token = createHash('sha256').update('floor-session').digest('hex');
  const insert = db.prepare(
    'INSERT INTO sessions (token_hash, user_id, ip_address, user_agent, created, expires, extra_info_json) SELECT ?, user_id, ?, ?, ?, ?, ? FROM users WHERE user_id = ?',
  );
  insert.run(token, '192.0.2.1', 'bench', now, now + 86_400_000, '{}', 1);
  const columns = (table: string, prefix: string, alias: string): string[] =>
    (db.prepare(`SELECT name FROM pragma_table_info('${table}')`) as unknown as { all(): Array<{ name: string }> })
      .all()
      .map(({ name }) => `${alias}.${name} AS ${prefix}${name}`);
  const joined = db.prepare(
    `SELECT ${[...columns('users', 'u_', 'u'), ...columns('sessions', 's_', 's')].join(', ')} FROM sessions AS s ` +
      'INNER JOIN users AS u ON u.user_id = s.user_id WHERE s.token_hash = ? AND s.expires > ?',
  );
  if (kind === 'read') return () => ({ session_info: joined.get(token, Date.now()) ?? null });
  if (kind === 'write')
    return () => {
      const fresh = randomBytes(32).toString('hex');
      const at = Date.now();
      const changes = insert.run(fresh, '192.0.2.1', 'bench', at, at + 86_400_000, '{}', 1).changes;
      return { session_token: fresh, created: changes === 1 };
    };
  throw new Error(`AUTHSVC_BENCH_STORE must be read or write, not ${kind}`);
}

/** One JSON line per request on stdout, written once per event-loop turn (as authsvc's log writer does). */
let pendingLines: string[] = [];
function logLine(fields: Record<string, unknown>): void {
  if (pendingLines.length === 0)
    setImmediate(() => {
      process.stdout.write(pendingLines.join(''));
      pendingLines = [];
    });
  pendingLines.push(
    `${JSON.stringify({ timestamp: new Date().toISOString(), level: 'info', message: 'request', ...fields })}\n`,
  );
}

const storeKind = process.env['AUTHSVC_BENCH_STORE'];
const work: Work | null = storeKind === undefined || storeKind === '' ? null : storeWork(storeKind);

/** A request body → the status, the reply body and (with a database) the request's log fields. */
function answer(body: string): { status: number; text: string; log: Record<string, unknown> | null } {
  let request: Record<string, unknown> | null;
  try {
    request = open(body);
  } catch {
    request = null;
  }
  if (request === null) return { status: 401, text: 'not ours\n', log: null };
  const text = seal({
    success: true,
    response: work === null ? { session_token: 'floor', expires: '2099-01-01T00:00:00.000000Z' } : work(request),
    messages: ['Floor reply.'],
    reqid: request['reqid'],
  });
  const log =
    work === null
      ? null
      : { method: 'POST', path: '/', status: 200, action: request['request'], reqid: request['reqid'] };
  return { status: 200, text, log };
}

/**
 * The same answers through Koa and @koa/router, as authsvc serves them (one route for `POST /`, a middleware
 * around it): what the framework the design asks for adds to the floor. AUTHSVC_BENCH_FRAMEWORK=koa.
 */
interface KoaContext {
  req: NodeJS.ReadableStream;
  status: number;
  body: unknown;
  set(name: string, value: string): void;
}
type KoaMiddleware = (ctx: KoaContext, next: () => Promise<void>) => Promise<void> | void;
interface KoaApp {
  use(middleware: KoaMiddleware): KoaApp;
  callback(): RequestListener;
}
function koaHandler(): RequestListener {
  const from = process.env['AUTHSVC_BENCH_REQUIRE_FROM'];
  if (from === undefined) throw new Error('AUTHSVC_BENCH_FRAMEWORK=koa needs AUTHSVC_BENCH_REQUIRE_FROM');
  const load = createRequire(from);
  const Koa = load('koa') as new () => KoaApp;
  const { Router } = load('@koa/router') as {
    Router: new (options: object) => { post(path: string, step: KoaMiddleware): { routes(): KoaMiddleware } };
  };
  const app = new Koa();
  app.use(async (_ctx, next) => {
    await next();
  });
  const route = new Router({ sensitive: true, strict: true }).post('/', async (ctx) => {
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
    const { status, text, log } = answer(Buffer.concat(chunks).toString('latin1'));
    ctx.status = status;
    ctx.set('Content-Type', 'text/plain; charset=utf-8');
    ctx.body = text;
    if (log !== null) logLine(log);
  });
  return app.use(route.routes()).callback();
}

const bare: RequestListener = (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const { status, text, log } = answer(Buffer.concat(chunks).toString('latin1'));
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(text);
    if (log !== null) logLine(log);
  });
};
const server = createServer(process.env['AUTHSVC_BENCH_FRAMEWORK'] === 'koa' ? koaHandler() : bare);
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
