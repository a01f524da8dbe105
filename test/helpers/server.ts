/**
 * A real authsvc on 127.0.0.1 with a temporary SQLite database (or the database given: a fresh one of a
 * `TestDatabase` from databases.ts, or a target as is), a frozen clock and a captured log, plus a raw
 * protocol client that stamps tokens with the server's clock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { startApp } from '../../src/app.js';
import type { AuditSink } from '../../src/log/audit.js';
import type { WebhookTuning } from '../../src/log/webhooks.js';
import type { MailTuning, RunningApp } from '../../src/app.js';
import type { Config } from '../../src/config/load.js';
import type { HashQueue, HashQueueOptions } from '../../src/accounts/password-hashing.js';
import { createHasher } from '../../src/accounts/password-hashing.js';
import { loadConfig } from '../../src/config/load.js';
import { generateFernetKey, openJson, sealJson } from '../../src/protocol/index.js';
import type { ActionInput, ActionName, Keyring, ResponseEnvelope } from '../../src/protocol/index.js';
import type { DatabaseTarget } from '../../src/services/store/url.js';
import { FrozenClock } from './clock.js';
import type { TestDatabase } from './databases.js';
import { databaseDigest } from './digest.js';
import { sqlOf } from './sql.js';

/** Cheap argon2 parameters: tests exercise logic, not hash cost. */
export const TEST_PASSHASH = { kind: 'argon2id', memoryCost: 1024, timeCost: 1, parallelism: 1 } as const;
export const testHasher = createHasher(TEST_PASSHASH);

export type LogLine = Record<string, unknown> & { level: string; message: string };

export interface TestServer {
  readonly app: RunningApp;
  readonly url: string;
  readonly secret: string;
  readonly keyring: Keyring;
  readonly clock: FrozenClock;
  readonly basedir: string;
  readonly logs: LogLine[];
  /** Sends one action through the real protocol; the token is stamped with the server's clock. */
  call<K extends ActionName>(
    action: K,
    body: ActionInput<K> | Record<string, unknown>,
    reqid?: string | number,
  ): Promise<ResponseEnvelope<K>>;
  /** POSTs a raw body to a path. */
  post(
    body: string | Buffer,
    init?: { path?: string; headers?: Record<string, string>; method?: string },
  ): Promise<Response>;
  /** Seals any JSON value as the frontend would (the server's clock unless given). */
  seal(value: unknown, nowMs?: number): string;
  /** Opens a reply body. */
  open(text: string): unknown;
  /** A digest of the database's rows, but in the `ignored` columns (test/helpers/digest.ts). */
  digest(ignored?: readonly string[]): Promise<string>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  /**
   * The database: a `TestDatabase` gives this server a fresh database of its kind; a target is used as
   * it is (a second start on the same database, a database behind a proxy). Default: SQLite in basedir.
   */
  readonly database?: TestDatabase | DatabaseTarget;
  readonly config?: Partial<Config>;
  readonly basedir?: string;
  readonly clock?: FrozenClock;
  readonly hashQueue?: HashQueueOptions | HashQueue;
  /** How the login back-off waits (default: a real timer). */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Extra audit sinks (a test's recorder of events). */
  readonly auditSinks?: readonly AuditSink[];
  readonly webhookTuning?: Partial<WebhookTuning>;
  readonly mailTuning?: MailTuning;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const basedir = options.basedir ?? mkdtempSync(join(tmpdir(), 'authsvc-test-'));
  const secret = generateFernetKey();
  const clock = options.clock ?? new FrozenClock();
  const logs: LogLine[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line.trim() !== '') logs.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  const authdb: DatabaseTarget =
    options.database === undefined
      ? { dialect: 'sqlite', filename: join(basedir, 'authsvc.sqlite') }
      : 'fresh' in options.database
        ? await options.database.fresh()
        : options.database;
  // The real loader gives the real defaults; tests then override what they need.
  const loaded = await loadConfig([], {
    AUTHSVC_SECRET: secret,
    AUTHSVC_PIISALT: 'test-pii-salt',
    AUTHSVC_AUTHDB: 'sqlite:///authsvc.sqlite',
    AUTHSVC_BASEDIR: basedir,
    AUTHSVC_PORT: '0',
    AUTHSVC_WORKERS: '1',
    AUTHSVC_SERVERNAME: 'authsvc.test',
    AUTHSVC_PWNEDURL: 'none',
    AUTHSVC_ADMIN_EMAIL: 'admin@example.org',
    AUTHSVC_ADMIN_PASSWORD: 'correct horse battery staple',
    // Tests send many requests from one IP: limits only where a test is about them (config.rateLimits).
    AUTHSVC_RATELIMITS: 'none',
    // Tests of login failures need no real waits unless they are about the back-off.
    AUTHSVC_LOGINBACKOFF: 'none',
  });
  if (!loaded.ok) throw new Error(`test config: ${loaded.problems.join('; ')}`);
  const config: Config = { ...loaded.config, authdb, passHash: TEST_PASSHASH, ...options.config };
  const app = await startApp({
    config,
    clock,
    logStream,
    ...(options.hashQueue ? { hashQueue: options.hashQueue } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
    ...(options.auditSinks ? { auditSinks: options.auditSinks } : {}),
    ...(options.webhookTuning ? { webhookTuning: options.webhookTuning } : {}),
    ...(options.mailTuning ? { mailTuning: options.mailTuning } : {}),
  });
  const effectiveKeyring = config.keyring;

  const seal = (value: unknown, nowMs = clock.now()): string => sealJson(effectiveKeyring, value, { nowMs });
  const open = (text: string): unknown => {
    const opened = openJson(effectiveKeyring, text, { nowMs: clock.now() });
    if (!opened.ok) throw new Error(`reply could not be opened: ${opened.reason}`);
    return opened.value;
  };
  const post: TestServer['post'] = (body, init = {}) =>
    fetch(new URL(init.path ?? '/', app.url), {
      method: init.method ?? 'POST',
      body: typeof body === 'string' ? body : new Uint8Array(body),
      headers: init.headers ?? {},
    });

  let counter = 0;
  return {
    app,
    url: app.url,
    secret,
    keyring: effectiveKeyring,
    clock,
    basedir,
    logs,
    seal,
    open,
    post,
    async call(action, body, reqid = `req-${++counter}`) {
      const response = await post(seal({ request: action, body, reqid, client_ipaddr: '203.0.113.7' }));
      const text = await response.text();
      if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${text}`);
      const reply = open(text) as ResponseEnvelope<typeof action>;
      if (reply.reqid !== reqid) throw new Error('reqid mismatch');
      return reply;
    },
    digest: (ignored) => databaseDigest(sqlOf(app.store), ignored),
    async close() {
      await app.close();
      if (options.basedir === undefined) rmSync(basedir, { recursive: true, force: true });
    },
  };
}
