import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PKG_DIR } from '../../src/package-dir.js';

/**
 * `npm install` on a fresh clone must leave package-lock.json as it is. Installing, npm writes `hasInstallScript`
 * again from the installed files: a `binding.gyp` without an install or preinstall script means npm's implicit
 * `node-gyp rebuild`, even beside `"gypfile": false` (npm builds from the registry's abbreviated metadata, which
 * does not carry `gypfile`). better-sqlite3 13 is such a package, and its entry lacked the flag, so every install on
 * a fresh clone added it. .ci/run checks the real thing (`git diff --exit-code` after its `npm install`); this
 * is the same rule, checked in a second. (package.json's allowScripts denies that no-op rebuild: the package
 * ships its prebuilt binaries.)
 */
interface LockEntry {
  readonly hasInstallScript?: boolean;
}
interface Manifest {
  readonly scripts?: Record<string, string>;
}

const lock = JSON.parse(readFileSync(join(PKG_DIR, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};

describe('package-lock.json', () => {
  it('says which installed packages have an install script, as npm install will write it', () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const [path, entry] of Object.entries(lock.packages)) {
      if (path === '' || !existsSync(join(PKG_DIR, path, 'package.json'))) continue; // not installed here
      checked++;
      const manifest = JSON.parse(readFileSync(join(PKG_DIR, path, 'package.json'), 'utf8')) as Manifest;
      const scripts = manifest.scripts ?? {};
      const implicitGyp =
        !('install' in scripts || 'preinstall' in scripts) && existsSync(join(PKG_DIR, path, 'binding.gyp'));
      const has = ['preinstall', 'install', 'postinstall'].some((s) => s in scripts) || implicitGyp;
      if (has !== (entry.hasInstallScript === true)) wrong.push(`${path}: hasInstallScript should be ${has}`);
    }
    assert.ok(checked > 100, `checked only ${checked} installed packages`);
    assert.deepEqual(wrong, []);
  });
});
