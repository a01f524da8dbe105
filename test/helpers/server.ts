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
import type { RunningApp } from '../../src/app.js';
import type { Config } from '../../src/config/load.js';
import { argon2Hasher } from '../../src/domain/passwords.js';
import { loadPolicyFile } from '../../src/policy/load.js';
import { generateFernetKey, openJson, parseKeyring, sealJson } from '../../src/protocol/index.js';
import type { ActionInput, ActionName, Keyring, ResponseEnvelope } from '../../src/protocol/index.js';
import { PKG_DIR } from '../../src/config/paths.js';
import type { DatabaseTarget } from '../../src/store/url.js';
import { FrozenClock } from './clock.js';
import type { TestDatabase } from './databases.js';
import { databaseDigest } from './digest.js';

/** Cheap argon2 parameters: tests exercise logic, not hash cost. */
export const testHasher = argon2Hasher({ memoryCost: 1024, timeCost: 1, parallelism: 1 });

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
  digest(): Promise<string>;
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
}

const DEFAULT_POLICY = join(PKG_DIR, 'policy', 'default.json');

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const basedir = options.basedir ?? mkdtempSync(join(tmpdir(), 'authsvc-test-'));
  const secret = generateFernetKey();
  const keyring = parseKeyring(secret);
  const policy = loadPolicyFile(DEFAULT_POLICY);
  if (keyring === null || !policy.ok) throw new Error('test setup');
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
  const config: Config = {
    keyring,
    piisalt: 'test-pii-salt',
    authdb,
    basedir,
    listen: '127.0.0.1',
    port: 0,
    allowedHosts: ['localhost', '127.0.0.1'],
    debugmode: false,
    sessionExpiryDays: 30,
    messageTtlSeconds: 120,
    maxBodySize: 1024 * 1024,
    workers: 1,
    permissionsPath: DEFAULT_POLICY,
    policy: policy.policy,
    admin: { email: 'admin@example.org', password: 'correct horse battery staple' },
    ...options.config,
  };
  const app = await startApp({ config, clock, hasher: testHasher, logStream });
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
    digest: () => databaseDigest(app.store.knex),
    async close() {
      await app.close();
      if (options.basedir === undefined) rmSync(basedir, { recursive: true, force: true });
    },
  };
}
