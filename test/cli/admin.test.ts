import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { generateFernetKey } from '../../src/protocol/index.js';
import { tempDir } from '../helpers/temp.js';
import { expectExit } from './admin-suite.js';
import { runAuthsvc } from './spawn.js';

/**
 * The admin command line, through the real binary (src/bin.ts): its usage. The database commands are in
 * admin-suite.ts, run by admin-sqlite.test.ts, admin-pg.test.ts and admin-mysql.test.ts side by side.
 */
const root = tempDir('admin');

describe('authsvc admin command line: usage', () => {
  const env = {
    AUTHSVC_SECRET: generateFernetKey(),
    AUTHSVC_PIISALT: 'usage-salt-usage',
    AUTHSVC_AUTHDB: 'sqlite:///u.sqlite',
  };

  it('refuses a password given as an option, with the reason, before touching the database', async () => {
    for (const args of [
      ['user', 'add', 'a@example.org', '--name=A', '--password=hunter2hunter2'],
      ['user', 'reset-password', '4', '--password', 'hunter2hunter2'],
    ]) {
      const result = await runAuthsvc(args, { cwd: root, env: { ...env, AUTHSVC_BASEDIR: root } });
      expectExit(result, 2, args.join(' '));
      assert.match(result.stderr, /never read from the command line/);
      assert.match(result.stderr, /pipe it on stdin/);
      assert.doesNotMatch(result.stderr, /hunter2/);
    }
  });

  it('answers 2 to an unknown command or a missing argument, and 2 to a configuration problem', async () => {
    const unknown = await runAuthsvc(['user', 'frobnicate'], { cwd: root, env });
    expectExit(unknown, 2, 'unknown command');
    assert.match(unknown.stderr, /unknown command "user frobnicate"/);
    const missing = await runAuthsvc(['user', 'show'], { cwd: root, env: { ...env, AUTHSVC_BASEDIR: root } });
    expectExit(missing, 2, 'missing argument');
    const unconfigured = await runAuthsvc(['user', 'list'], { cwd: root });
    expectExit(unconfigured, 2, 'no configuration');
    assert.match(unconfigured.stderr, /secret/);
  });

  it('lists every command with examples in authsvc user --help and authsvc --help', async () => {
    const user = await runAuthsvc(['user', '--help'], { cwd: root });
    expectExit(user, 0, 'user --help');
    for (const verb of ['list', 'show', 'add', 'lock', 'unlock', 'delete', 'reset-password', 'set-role']) {
      assert.match(user.stdout, new RegExp(`^  ${verb} `, 'm'), verb);
    }
    assert.match(user.stdout, /Examples:/);
    assert.match(user.stdout, /Exit codes: 0 done; 1 refused/);
    const top = await runAuthsvc(['--help'], { cwd: root });
    expectExit(top, 0, '--help');
    assert.match(top.stdout, /authsvc user list\|show\|add\|lock\|unlock\|delete\|reset-password\|set-role/);
    assert.match(top.stdout, /authsvc session purge/);
    assert.match(top.stdout, /authsvc policy check/);
  });

  it('checks a policy file with line:column and exits 1 on problems, 0 on a clean one', async () => {
    const broken = join(root, 'broken.json');
    writeFileSync(broken, '{\n  "roles": ["superuser", 1]\n}\n');
    const bad = await runAuthsvc(['policy', 'check', 'broken.json'], { cwd: root });
    expectExit(bad, 1, 'broken policy');
    assert.match(bad.stdout, new RegExp(`${broken.replaceAll('/', '\\/')}:\\d+:\\d+: `));
    const json = await runAuthsvc(['policy', 'check', broken, '--json'], { cwd: root });
    expectExit(json, 1, 'broken policy --json');
    const report = JSON.parse(json.stdout) as { problems: Array<{ line: number; column: number }> };
    assert.ok(report.problems.length > 0 && report.problems.every((p) => p.line >= 1 && p.column >= 1));
    const missing = await runAuthsvc(['policy', 'check', 'nowhere.json'], { cwd: root });
    expectExit(missing, 2, 'unreadable policy');
  });
});
