import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { loadConfig } from '../../src/config/load.js';
import { PKG_DIR } from '../../src/package-dir.js';
import { generateFernetKey, parseKeyring } from '../../src/protocol/index.js';
import { BLANK_ANSWERS, runSetup } from '../../src/setup/autosetup.js';
import { startAuthsvc } from '../cli/spawn.js';
import { blocksOf } from '../helpers/doc-blocks.js';
import { tempDir } from '../helpers/temp.js';

/**
 * The shell examples of the operations pages (docs/operations/*.md), run as written (paths swapped for temporary
 * ones); each is marked `<!-- checked-by: test/deploy/operations-doc.test.ts -->` there (test/docs/code-blocks.test.ts).
 */
const pages = readdirSync(join(PKG_DIR, 'docs', 'operations'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/operations/${f}`);
const page = (name: string): string => readFileSync(join(PKG_DIR, 'docs', 'operations', name), 'utf8');
const dir = tempDir('opsdoc');

/** The one line of a ```sh block that starts with `prefix`. */
function exampleLine(prefix: string): string {
  const blocks = pages.flatMap(blocksOf).filter((b) => b.language === 'sh');
  const lines = blocks.flatMap((b) => b.code.split('\n').map((line) => line.trim()));
  const found = lines.filter((line) => line.startsWith(prefix));
  assert.equal(found.length, 1, `one example starting with ${prefix}`);
  return found[0] ?? '';
}

function sh(command: string, cwd = dir, env: Record<string, string> = {}): string {
  const result = spawnSync('bash', ['-euo', 'pipefail', '-c', command], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  assert.equal(result.status, 0, `${command}\n${result.stderr}`);
  return result.stdout;
}

const hasCommand = (name: string): boolean => spawnSync('bash', ['-c', `command -v ${name}`]).status === 0;

describe('docs/operations/*.md examples', () => {
  it('makes a Fernet key with openssl', { skip: hasCommand('openssl') ? false : 'openssl is not installed' }, () => {
    sh(exampleLine('openssl rand -base64 32 | tr'));
    assert.notEqual(parseKeyring(readFileSync(join(dir, 'new-key'), 'utf8').trim()), null);
  });

  it('reads the admin credentials file with read -r', () => {
    const data = join(dir, '.authsvc');
    sh(`mkdir -p ${data} && printf 'admin@example.org s3cret-pass\\n' > ${data}/.authsvc-admin-credentials`);
    const line = exampleLine('read -r ADMIN_EMAIL');
    assert.equal(sh(`${line}; echo "$ADMIN_EMAIL|$ADMIN_PASSWORD"`), 'admin@example.org|s3cret-pass\n');
  });

  it('backs up a running SQLite database (WAL) online, with both commands', async () => {
    const basedir = join(dir, 'live');
    sh(`mkdir -p ${basedir}`);
    const env = {
      AUTHSVC_SECRET: generateFernetKey(),
      AUTHSVC_PIISALT: 'backup-salt',
      AUTHSVC_AUTHDB: 'sqlite:///authsvc.sqlite',
      AUTHSVC_BASEDIR: basedir,
      AUTHSVC_WORKERS: '1',
    };
    const server = await startAuthsvc(['--port=0'], { cwd: basedir, env });
    try {
      const live = join(basedir, 'authsvc.sqlite');
      const examples = [
        { line: exampleLine('DB=/var/lib/authsvc/authsvc.sqlite BACKUP='), backup: join(dir, 'node-backup.sqlite') },
        ...(hasCommand('sqlite3')
          ? [{ line: exampleLine('sqlite3 /var/lib/authsvc/authsvc.sqlite'), backup: join(dir, 'shell-backup.sqlite') }]
          : []),
      ];
      for (const { line, backup } of examples) {
        sh(
          line.replaceAll('/var/lib/authsvc/authsvc.sqlite', live).replaceAll('/var/backups/authsvc.sqlite', backup),
          PKG_DIR,
        );
        const copy = new Database(backup, { readonly: true });
        try {
          assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok');
          const users = copy.prepare('SELECT count(*) AS n FROM users').get() as { n: number };
          assert.ok(users.n >= 3, 'the fixed accounts are in the copy');
        } finally {
          copy.close();
        }
      }
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  it('overrides one field of one item in the data folder copy, as the upgrade section shows', async () => {
    const maintenance = page('maintenance.md');
    const override = /```json\n([\s\S]*?)```/.exec(maintenance.slice(maintenance.indexOf('## Upgrades')))?.[1] ?? '';
    const path = join(dir, 'override.json');
    writeFileSync(path, override);
    const env = {
      AUTHSVC_SECRET: generateFernetKey(),
      AUTHSVC_PIISALT: 'pepper-pepper',
      AUTHSVC_AUTHDB: 'sqlite:///a.sqlite',
    };
    const result = await loadConfig([`--confvars=${path}`, `--basedir=${dir}`], { ...env, MY_PORT: '4321' });
    assert.equal(result.ok && result.config.port, 4321);
  });
  it('runs every admin command line example, in order, on the data folder a first start makes', async () => {
    const clone = join(dir, 'clone');
    const setup = await runSetup(join(clone, '.authsvc'), BLANK_ANSWERS, { force: false });
    assert.ok(setup.ok, JSON.stringify(setup));
    // `npx authsvc` of a clone: the package's bin, dist/bin.js (scripts/run-tests.mjs builds it first).
    const authsvc = `${process.execPath} ${join(PKG_DIR, 'dist', 'bin.js')}`;
    const section = page('admin-commands.md');
    const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const lines = block.split('\n').filter((line) => line.trim() !== '');
    assert.ok(lines.length >= 10, 'the section shows the commands');
    const outputs = new Map<string, string>();
    for (const line of lines) {
      outputs.set(
        line,
        // The clone's data folder, named: `npx authsvc` finds it only in the package it set up (test/cli/admin-start-folder.test.ts).
        sh(line.replace(/npx authsvc (\w+)/, `${authsvc} $1 --envfile=${join(clone, '.authsvc', '.env')}`), clone, {
          ALICE_PASSWORD: 'Lantern-Harbour-Orbit-77',
          NEW_PASSWORD: 'Meadow-Quartz-Violin-31',
        }),
      );
    }
    const users = JSON.parse(readFileSync(join(clone, 'users.json'), 'utf8')) as Array<{ email: string }>;
    assert.deepEqual(
      users.map((u) => u.email),
      ['root@localhost', 'anonuser@localhost', 'dummyuser@localhost', 'alice@example.org'],
    );
    const shown = [...outputs].find(([line]) => line.includes('user show'))?.[1] ?? '';
    assert.match(shown, /^is_active: +true$/m);
    assert.match([...outputs].find(([line]) => line.includes('set-role'))?.[1] ?? '', /^user_role: +staff$/m);
    assert.match([...outputs].find(([line]) => line.includes('user lock'))?.[1] ?? '', /^locked: +true$/m);
    assert.match([...outputs].find(([line]) => line.includes('policy check'))?.[1] ?? '', /: no problems$/m);
    assert.match([...outputs].find(([line]) => line.includes('user delete'))?.[1] ?? '', /^deleted user 4 /m);
  });
});
