import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PKG_DIR } from '../../src/package-dir.js';
import { runAuthsvc, startAuthsvc } from './spawn.js';

/**
 * The admin commands in a clone where `npm start` has set up `.authsvc/`: they use that folder as `npm start` does,
 * with no `--envfile`. A copy of the package plays the clone (its dist/ runs, as `npx authsvc` and `npm start` run it).
 */
const root = mkdtempSync(join(tmpdir(), 'authsvc-admin-clone-'));
const clone = join(root, 'authsvc');

before(() => {
  for (const part of ['src', 'dist', 'policy', 'policy-schema', 'package.json', 'tsconfig.json']) {
    cpSync(join(PKG_DIR, part), join(clone, part), { recursive: true });
  }
  symlinkSync(join(PKG_DIR, 'node_modules'), join(clone, 'node_modules'));
});
after(() => rmSync(root, { recursive: true, force: true }));

const admin = (args: string[], cwd = clone) => runAuthsvc(args, { cwd, pkgDir: clone });

describe('authsvc user … in a clone', () => {
  it('before npm start, refuses naming the three items and every way to give them', async () => {
    const result = await admin(['user', 'list']);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /secret \(--secret, AUTHSVC_SECRET, AUTHSVC_SECRETKEY\) is required/);
    assert.match(result.stderr, /npm start/);
    assert.match(result.stderr, /--envfile=/);
    assert.match(result.stderr, new RegExp(join(clone, '.authsvc')));
  });

  it('after npm start, uses .authsvc/ as npm start does: no --envfile, from any folder', async () => {
    const server = await startAuthsvc(['--port=0', '--workers=1'], { cwd: clone, entry: 'start.ts', pkgDir: clone });
    assert.equal(await server.stop(), 0);
    // An exported secret (for a frontend, or the Python examples) chooses no other installation.
    const secret = readFileSync(join(clone, '.authsvc', '.authsvc-secret-key'), 'utf8');
    for (const [cwd, env] of [
      [clone, {}],
      [join(clone, 'src'), {}],
      [root, { AUTHSVC_SECRET: secret }],
    ] as const) {
      const listed = await runAuthsvc(['user', 'list', '--json'], { cwd, pkgDir: clone, env });
      assert.equal(listed.code, 0, `${cwd}: ${listed.stderr}`);
      const users = JSON.parse(listed.stdout) as Array<{ email: string }>;
      assert.ok(
        users.some((u) => u.email === 'anonuser@localhost'),
        listed.stdout,
      );
      assert.match(listed.stderr, /npm start's settings/);
    }
  });

  it('takes a configuration it is given over the folder, and says nothing of the folder then', async () => {
    const elsewhere = mkdtempSync(join(root, 'other-'));
    const result = await admin(['user', 'list', '--json', `--basedir=${elsewhere}`], elsewhere);
    assert.equal(result.code, 2, 'the items are not given for that folder');
    assert.doesNotMatch(result.stderr, /npm start's settings/);
    assert.match(result.stderr, /piisalt \(--piisalt, AUTHSVC_PIISALT\) is required/);
  });
});
