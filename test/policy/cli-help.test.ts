import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { PKG_DIR } from '../../src/package-dir.js';
import { childEnv } from '../helpers/child-env.js';

/** `npm run policy:lint|diff|test -- --help`, as a user types it: the usage, what it does and the exit codes. */
describe('the policy commands', () => {
  for (const [script, usage] of [
    ['policy:lint', 'npm run policy:lint -- FILE... [--format text|json]'],
    ['policy:diff', 'npm run policy:diff -- OLD NEW'],
    ['policy:test', 'npm run policy:test -- POLICY TABLE...'],
  ] as const) {
    it(`${script} -- --help (and -h) prints its usage and exit codes on stdout and exits 0`, () => {
      for (const flag of ['--help', '-h']) {
        const run = spawnSync('npm', ['run', '--silent', script, '--', flag], {
          cwd: PKG_DIR,
          encoding: 'utf8',
          env: childEnv({ HOME: process.env['HOME'] ?? '/tmp' }),
        });
        assert.equal(run.status, 0, `${script} ${flag}: ${run.stderr}`);
        assert.equal(run.stderr, '');
        assert.ok(run.stdout.startsWith(`usage: ${usage}\n`), run.stdout);
        assert.match(run.stdout, /^Exit codes: 0 /m);
        assert.match(run.stdout, /docs\/policy\.md/);
      }
    });
  }
});
