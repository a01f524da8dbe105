/**
 * Which files and folders of src/ one request runs code in, and a gate on it for CI (`npm run request-path`).
 *
 * What it measures: the app started in-process with the configuration a deployment gets by default (the
 * real loader given only what has no default: secret, PII salt, a temporary SQLite database and base
 * directory, port 0, one worker, no pwned-password service so no network is needed); a first login warms
 * it up (lazy imports, prepared statements, first-use caches), then V8 precise coverage is started just
 * before one more request is posted through real HTTP and taken as soon as the reply arrives. A file counts
 * when any of its functions ran (call count > 0). Production defaults, not the tests' configuration, so
 * that rate limits and the login back-off, which the test servers turn off, are counted as they run.
 *
 * Folders are every folder holding a file that ran (`services/store` and `services/admission` are two); the
 * layers (the first folder under src/, the top level being grouped by the layers of .dependency-cruiser.cjs)
 * are printed too. The gate: at most MAX_FOLDERS folders and MAX_FILES files for `user-login`; over either,
 * the exit code is 1.
 *   npx tsx scripts/request-path.ts [--no-limits] [user-login|user-check-access|session-exists ...]
 */
import assert from 'node:assert/strict';
import { Session } from 'node:inspector/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Writable } from 'node:stream';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startApp } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import { PKG_DIR } from '../src/package-dir.js';
import { generateFernetKey, openJson, sealJson } from '../src/protocol/index.js';
import { sqlOf } from '../test/helpers/sql.js';

const MAX_FOLDERS = 8;
const MAX_FILES = 35;

interface FunctionCoverage {
  readonly ranges: readonly { readonly count: number }[];
}
interface ScriptCoverage {
  readonly url: string;
  readonly functions: readonly FunctionCoverage[];
}

const args = process.argv.slice(2);
const limits = !args.includes('--no-limits');
const named = args.filter((a) => !a.startsWith('--'));
const actions = named.length > 0 ? named : ['user-login'];

const basedir = mkdtempSync(join(tmpdir(), 'authsvc-request-path-'));
const loaded = await loadConfig([], {
  AUTHSVC_SECRET: generateFernetKey(),
  AUTHSVC_PIISALT: 'request-path-pii-salt',
  AUTHSVC_AUTHDB: 'sqlite:///authsvc.sqlite',
  AUTHSVC_BASEDIR: basedir,
  AUTHSVC_PORT: '0',
  AUTHSVC_WORKERS: '1',
  AUTHSVC_PWNEDURL: 'none',
});
if (!loaded.ok) throw new Error(`config: ${loaded.problems.join('; ')}`);
const config = loaded.config;
// The log is written as in production (its formatting and writer are on the path) and dropped.
const logStream = new Writable({ write: (_chunk, _encoding, done) => done() });
const app = await startApp({ config, logStream });

let reqid = 0;
/** One action through real HTTP; the sealed body is made before `around` starts, the reply opened after. */
async function call(
  action: string,
  body: Record<string, unknown>,
  around?: { before(): Promise<void>; after(): Promise<void> },
): Promise<Record<string, unknown>> {
  const sealed = sealJson(config.keyring, { request: action, body, reqid: ++reqid, client_ipaddr: '192.0.2.1' });
  await around?.before();
  const response = await fetch(app.url, { method: 'POST', body: sealed, headers: { host: '127.0.0.1' } });
  const text = await response.text();
  await around?.after();
  assert.equal(response.status, 200, `${action}: HTTP ${String(response.status)} ${text}`);
  const opened = openJson(config.keyring, text, { nowMs: Date.now() });
  if (!opened.ok) throw new Error(`${action}: the reply could not be opened: ${opened.reason}`);
  const reply = opened.value as { success?: boolean; response?: Record<string, unknown> };
  assert.equal(reply.success, true, `${action}: ${text}`);
  return reply.response ?? {};
}

const email = 'request-path@example.org';
const password = 'plinth-orchard-vapour-42';
const signedUp = await call('user-new', { email, password, full_name: 'Request Path' });
const userId = Number(signedUp['user_id']);
// Verified and active, as user-set-emailverified leaves an account.
await sqlOf(app.store)('users')
  .where('user_id', userId)
  .update({ email_verified: true, is_active: true, user_role: 'authenticated' });

async function anonymousSession(): Promise<string> {
  const opened = await call('session-new', {
    ip_address: '198.51.100.20',
    user_agent: 'request-path',
    user_id: null,
    expires: 7,
    extra_info_json: {},
  });
  return String(opened['session_token']);
}

async function bodyFor(action: string): Promise<Record<string, unknown>> {
  if (action === 'user-login') return { session_token: await anonymousSession(), email, password };
  if (action === 'session-exists') return { session_token: await anonymousSession() };
  if (action === 'user-check-access') {
    return {
      user_id: userId,
      user_role: 'authenticated',
      action: 'view',
      target_name: 'dataset',
      target_owner: userId,
      target_visibility: 'private',
      target_sharedwith: '',
    };
  }
  throw new Error(`no body for ${action}`);
}

const inspector = new Session();
inspector.connect();
await inspector.post('Profiler.enable');
let over = false;
for (const action of actions) {
  await call(action, await bodyFor(action)); // the warm-up
  const body = await bodyFor(action);
  let coverage: readonly ScriptCoverage[] = [];
  await call(action, body, {
    before: async () => {
      await inspector.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    },
    after: async () => {
      coverage = ((await inspector.post('Profiler.takePreciseCoverage')) as { result: ScriptCoverage[] }).result;
      await inspector.post('Profiler.stopPreciseCoverage');
    },
  });
  const files = coverage
    .filter((s) => s.url.startsWith('file://'))
    .filter((s) => s.functions.some((f) => f.ranges.some((r) => r.count > 0)))
    .map((s) => relative(PKG_DIR, fileURLToPath(s.url)))
    .filter((f) => f.startsWith('src/'))
    .sort();
  const folders = new Set(files.map((f) => f.split('/').slice(1, -1).join('/') || '.'));
  const layers = new Set(files.map((f) => (f.split('/').length > 2 ? f.split('/')[1] : 'src')));
  console.log(
    `${action}: ${String(files.length)} files, ${String(folders.size)} folders (${[...folders].join(' ')}), ` +
      `${String(layers.size)} layers`,
  );
  for (const f of files) console.log(`  ${f}`);
  if (limits && action === 'user-login' && (files.length > MAX_FILES || folders.size > MAX_FOLDERS)) {
    console.error(
      `request-path: a user-login crosses ${String(files.length)} files in ${String(folders.size)} folders; ` +
        `the limit is ${String(MAX_FILES)} files in ${String(MAX_FOLDERS)} folders`,
    );
    over = true;
  }
}
inspector.disconnect();
await app.close();
rmSync(basedir, { recursive: true, force: true });
process.exitCode = over ? 1 : 0;
