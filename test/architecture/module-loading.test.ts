/**
 * A process loads what it needs and no more: only the database driver in use, ioredis only with
 * `redisurl`, nodemailer only once an email is sent, never the docs generators or the policy authoring
 * CLIs; a cluster primary, which serves no requests, never the HTTP app or the actions. Checked on
 * real processes: a loader hook records every module each one resolves (ESM) and, at exit, every
 * CommonJS module it holds.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { spawnAuthsvc } from '../helpers/process.js';

const dir = mkdtempSync(join(tmpdir(), 'authsvc-modules-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// The hooks run on the loader thread of each process; both write to the process's own file.
writeFileSync(
  join(dir, 'hooks.mjs'),
  `import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(file, resolved.url + '\\n');
  return resolved;
}
`,
);
writeFileSync(
  join(dir, 'record.mjs'),
  `import cluster from 'node:cluster';
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
const file = ${JSON.stringify(dir)} + '/' + (cluster.isPrimary ? 'primary' : 'worker') + '-' + process.pid + '.log';
register('./hooks.mjs', { parentURL: import.meta.url, data: { file } });
const require = createRequire(import.meta.url);
process.on('exit', () => appendFileSync(file, Object.keys(require.cache).join('\\n') + '\\n'));
`,
);

/** Starts authsvc with the recorder, stops it, and returns what each process loaded, by role. */
async function loadedBy(workers: number, env: Record<string, string> = {}): Promise<Map<string, string[]>> {
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.log'))) rmSync(join(dir, file));
  // From the source: the patterns below name src/ files.
  const server = await spawnAuthsvc({
    source: true,
    workers,
    env: { NODE_OPTIONS: `--import=${pathToFileURL(join(dir, 'record.mjs')).href}`, ...env },
  });
  await server.stop();
  const byRole = new Map<string, string[]>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.log'))) {
    const role = file.split('-')[0] ?? file;
    const lines = readFileSync(join(dir, file), 'utf8').split('\n').filter(Boolean);
    byRole.set(role, [...(byRole.get(role) ?? []), ...lines]);
  }
  return byRole;
}

const pkg = (name: string): RegExp => new RegExp(`node_modules/${name}/`);
const own = (path: string): RegExp => new RegExp(`/src/${path}`);

function assertLoaded(modules: readonly string[], pattern: RegExp): void {
  assert.ok(
    modules.some((m) => pattern.test(m)),
    `expected a module matching ${pattern}`,
  );
}

function assertNotLoaded(modules: readonly string[], pattern: RegExp): void {
  const found = modules.filter((m) => pattern.test(m));
  assert.deepEqual(found, [], `nothing matching ${pattern} should be loaded`);
}

/** Loaded by no serving process, whatever its role. */
const NEVER = [
  pkg('pg'),
  pkg('mysql2'),
  pkg('ioredis'),
  pkg('nodemailer'),
  // Loaded by the first enrolment of an authenticator app (its QR code), not at start.
  pkg('qrcode'),
  own('docs/'),
  own('policy-cli/'),
  own('services/policy/authoring/(diff|diff-format|fixture-load|fixture-run)\\.ts'),
];

describe('module loading', () => {
  it('a single process on SQLite loads better-sqlite3 and the HTTP app, and no other driver, no Redis, no mail', async () => {
    const loaded = await loadedBy(1);
    const modules = loaded.get('primary') ?? [];
    // The recorder works: what the process needs is there.
    assertLoaded(modules, pkg('better-sqlite3'));
    assertLoaded(modules, pkg('koa'));
    assertLoaded(modules, own('actions/dispatch\\.ts'));
    for (const pattern of NEVER) assertNotLoaded(modules, pattern);
  });

  it('a cluster primary loads the store and no HTTP app, actions or accounts; its workers do', async () => {
    const loaded = await loadedBy(2);
    const primary = loaded.get('primary') ?? [];
    const workers = loaded.get('worker') ?? [];
    assertLoaded(primary, pkg('knex'));
    assertLoaded(primary, own('cluster/primary\\.ts'));
    for (const pattern of [
      ...NEVER,
      pkg('koa'),
      pkg('@koa/router'),
      own('http/server\\.ts'),
      own('actions/'),
      // config decodes the hashing and password-policy options (their defaults live with them); nothing else of accounts/.
      own('accounts/(?!password-hashing\\.ts|password-policy\\.ts)'),
      own('services/mail/'),
      own('cluster/worker\\.ts'),
    ])
      assertNotLoaded(primary, pattern);
    assertLoaded(workers, pkg('koa'));
    assertLoaded(workers, own('actions/dispatch\\.ts'));
    assertNotLoaded(workers, own('cluster/primary\\.ts'));
    for (const pattern of NEVER) assertNotLoaded(workers, pattern);
  });
});
