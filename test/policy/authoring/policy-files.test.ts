import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { PKG_DIR } from '../../../src/package-dir.js';
import { BLANK_ANSWERS, runSetup } from '../../../src/setup/autosetup.js';
import { TEST_PASSHASH } from '../../helpers/server.js';
import { createHasher } from '../../../src/accounts/password-hashing.js';
import { tempDir } from '../../helpers/temp.js';
import { childEnv } from '../../helpers/child-env.js';

/**
 * Policy files as their authors meet them: the three policy CLIs read relative paths from the
 * directory they were called in (npm runs scripts in the package and says where in INIT_CWD), and
 * the `$schema` of every policy copy, the data folder's included, names a file that exists.
 */
const dir = tempDir('policy-files');

const DEFAULT_POLICY = join(PKG_DIR, 'policy', 'default.json');
const FIXTURE = join(PKG_DIR, 'policy', 'fixtures', 'default-limits.json');

function cli(name: string, args: string[], options: { cwd: string; initCwd?: string }) {
  return spawnSync(
    process.execPath,
    ['--import', import.meta.resolve('tsx'), join(PKG_DIR, 'src', 'policy-cli', `${name}-cli.ts`), ...args],
    {
      cwd: options.cwd,
      encoding: 'utf8',
      timeout: 60_000,
      env: childEnv(options.initCwd === undefined ? {} : { INIT_CWD: options.initCwd }),
    },
  );
}

/** Where a document's `$schema` points, resolved as editors resolve it: against the document's folder. */
function schemaTarget(file: string): string | null {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { $schema?: unknown };
  if (typeof doc.$schema !== 'string') return null;
  return /^[a-z]+:/i.test(doc.$schema) ? doc.$schema : resolve(dirname(file), doc.$schema);
}

describe('the policy CLIs read relative paths from the caller’s directory', () => {
  const caller = join(dir, 'caller');
  cpSync(DEFAULT_POLICY, join(caller, 'mine.json'));
  cpSync(DEFAULT_POLICY, join(caller, 'theirs.json'));
  cpSync(FIXTURE, join(caller, 'table.json'));

  for (const [name, args, expected] of [
    ['lint', ['mine.json'], 0],
    ['diff', ['mine.json', 'theirs.json'], 0],
    ['fixtures', ['mine.json', 'table.json'], 0],
  ] as const) {
    it(`policy:${name === 'fixtures' ? 'test' : name} run through npm (package cwd, INIT_CWD the caller's)`, () => {
      const run = cli(name, [...args], { cwd: PKG_DIR, initCwd: caller });
      assert.equal(run.status, expected, `${run.stdout}\n${run.stderr}`);
    });
    it(`policy:${name === 'fixtures' ? 'test' : name} run directly (the process's cwd)`, () => {
      const run = cli(name, [...args], { cwd: caller });
      assert.equal(run.status, expected, `${run.stdout}\n${run.stderr}`);
    });
  }

  it('still reads absolute paths as they are', () => {
    const run = cli('lint', [join(caller, 'mine.json')], { cwd: PKG_DIR, initCwd: tmpdir() });
    assert.equal(run.status, 0, run.stderr);
  });
});

describe('the $schema of every policy copy', () => {
  it('resolves in the copy autosetup and the first npm start write into the data folder', async () => {
    const basedir = join(dir, 'data');
    const setup = await runSetup(basedir, BLANK_ANSWERS, { force: false, hasher: createHasher(TEST_PASSHASH) });
    assert.ok(setup.ok, JSON.stringify(setup));
    const copy = join(basedir, 'permissions.json');
    const target = schemaTarget(copy);
    assert.ok(target !== null && existsSync(target), `${copy}: $schema ${String(target)} does not exist`);
    assert.deepEqual(
      JSON.parse(readFileSync(target, 'utf8')),
      JSON.parse(readFileSync(join(PKG_DIR, 'policy-schema', 'policy.schema.json'), 'utf8')),
      'the schema beside the copy is the shipped one',
    );
    // Only $schema changed: the copy is the shipped policy.
    const { $schema: _copied, ...copied } = JSON.parse(readFileSync(copy, 'utf8')) as Record<string, unknown>;
    const { $schema: _shipped, ...shipped } = JSON.parse(readFileSync(DEFAULT_POLICY, 'utf8')) as Record<
      string,
      unknown
    >;
    assert.deepEqual(copied, shipped);
  });

  it('resolves in every policy and decision table of the repository', () => {
    const roots = ['policy', 'examples', join('test', 'policy')].map((r) => join(PKG_DIR, r));
    const files = roots.flatMap((root) =>
      readdirSync(root, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.json'))
        .map((f) => join(root, f)),
    );
    let checked = 0;
    for (const file of files) {
      let target: string | null;
      try {
        target = schemaTarget(file);
      } catch {
        continue; // the deliberately broken policies of the lint tests
      }
      if (target === null) continue;
      checked++;
      assert.ok(existsSync(target), `${relative(PKG_DIR, file)}: $schema ${target} does not exist`);
    }
    assert.ok(checked >= 10, `${checked} documents with a $schema`);
  });
});
