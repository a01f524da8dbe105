import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { PKG_DIR } from '../../src/package-dir.js';
import { runAuthsvc } from './spawn.js';

const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'authsvc-cli-'));
  dirs.push(dir);
  return dir;
};
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const version = (JSON.parse(readFileSync(join(PKG_DIR, 'package.json'), 'utf8')) as { version: string }).version;

describe('authsvc --version and --help', () => {
  it('prints the version with --version or -v, and exits 0', async () => {
    for (const flag of ['--version', '-v']) {
      const result = await runAuthsvc([flag], { cwd: tempDir() });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, `authsvc ${version}\n`);
    }
  });

  it('shows examples, run as npx authsvc', async () => {
    const result = await runAuthsvc(['--help'], { cwd: tempDir() });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^Examples:$/m);
    assert.match(result.stdout, /npx authsvc --autosetup --basedir=/);
    assert.match(result.stdout, /--version, -v/);
  });
});

describe('authsvc --autosetup, for people', () => {
  it('puts each piped question on its own line and says npx authsvc and what the credentials file holds', async () => {
    const basedir = join(tempDir(), 'setup');
    const result = await runAuthsvc(['--autosetup', `--basedir=${basedir}`], { cwd: tempDir(), input: '\n\n\n\n' });
    assert.equal(result.code, 0, result.stderr);
    const questions = result.stdout.split('\n').filter((line) => line.endsWith('): '));
    assert.equal(questions.length, 4, result.stdout);
    assert.match(result.stdout, /^ {2}npx authsvc --basedir=/m);
    assert.match(result.stdout, /admin credentials: .*\.authsvc-admin-credentials \(one line: the email, a space/);
    assert.match(readFileSync(join(basedir, '.env'), 'utf8'), /^# {3}npx authsvc --basedir=/m);
  });

  it('refuses an existing setup before asking anything', async () => {
    const basedir = join(tempDir(), 'twice');
    assert.equal((await runAuthsvc(['--autosetup', `--basedir=${basedir}`], { cwd: tempDir() })).code, 0);
    const again = await runAuthsvc(['--autosetup', `--basedir=${basedir}`], { cwd: tempDir(), input: '\n\n\n\n' });
    assert.equal(again.code, 2);
    assert.match(again.stderr, /already set up .* add --force/);
    assert.doesNotMatch(again.stdout, /Database URL/);
  });

  it('leaves nothing half-written when the database fails, and shows its message, not a stack', async () => {
    const basedir = join(tempDir(), 'nodb');
    const result = await runAuthsvc(['--autosetup', `--basedir=${basedir}`], {
      cwd: tempDir(),
      input: 'postgresql://nobody@127.0.0.1:1/none\n\n\n\n',
    });
    assert.equal(result.code, 2, result.stdout + result.stderr);
    assert.match(result.stderr, /setup failed, nothing was written: .*ECONNREFUSED/);
    assert.doesNotMatch(result.stderr, /^\s+at /m);
    assert.equal(existsSync(basedir), false, 'the folder it created is gone');
  });

  it('takes back only what it wrote when the folder existed before', async () => {
    const basedir = tempDir();
    const result = await runAuthsvc(['--autosetup', `--basedir=${basedir}`], {
      cwd: tempDir(),
      input: 'postgresql://nobody@127.0.0.1:1/none\n\n\n\n',
    });
    assert.equal(result.code, 2);
    assert.equal(existsSync(basedir), true);
    assert.equal(existsSync(join(basedir, '.authsvc-secret-key')), false);
  });
});
