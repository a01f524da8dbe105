/**
 * The boundaries of .dependency-cruiser.cjs are what `npm run lint` enforces. These tests show that the
 * checker really fails on the violations it is there for: a copy of src/ gets one planted dependency
 * from the wire protocol up to the store, as an import, a re-export and a dynamic import, and each must
 * fail; the untouched copy must pass.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { PKG_DIR } from '../../src/package-dir.js';

const DEPCRUISE = join(PKG_DIR, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const copies: string[] = [];
after(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

/** A copy of the tree with `plant` appended to src/protocol/index.ts; runs the lint's boundary check on it. */
function cruiseWith(plant: string): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'authsvc-boundaries-'));
  copies.push(dir);
  cpSync(join(PKG_DIR, 'src'), join(dir, 'src'), { recursive: true });
  for (const file of ['.dependency-cruiser.cjs', '.dependency-cruiser-known-violations.json', 'tsconfig.json']) {
    cpSync(join(PKG_DIR, file), join(dir, file));
  }
  symlinkSync(join(PKG_DIR, 'node_modules'), join(dir, 'node_modules'));
  if (plant !== '') appendFileSync(join(dir, 'src', 'protocol', 'index.ts'), `\n${plant}\n`);
  const run = spawnSync(
    process.execPath,
    [DEPCRUISE, 'src', '--config', '.dependency-cruiser.cjs', '--ignore-known', '--output-type', 'err'],
    { cwd: dir, encoding: 'utf8' },
  );
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('the dependency boundaries', () => {
  it('hold for the source tree as it is', () => {
    const run = cruiseWith('');
    assert.equal(run.status, 0, run.output);
  });

  it('fail the lint on an import from src/protocol/index.ts to src/services/store/index.ts', () => {
    const run = cruiseWith("import '../services/store/index.js';");
    assert.notEqual(run.status, 0, run.output);
    assert.match(run.output, /protocol-imports: src\/protocol\/index\.ts → src\/services\/store\/index\.ts/);
  });

  it('fail the lint on a re-export from src/protocol/index.ts of src/services/store/index.ts', () => {
    const run = cruiseWith("export type { Store } from '../services/store/index.js';");
    assert.notEqual(run.status, 0, run.output);
    assert.match(run.output, /protocol-imports: src\/protocol\/index\.ts → src\/services\/store\/index\.ts/);
  });

  it('fail the lint on a dynamic import from src/protocol/index.ts of src/services/store/index.ts', () => {
    const run = cruiseWith("export const loadStore = () => import('../services/store/index.js');");
    assert.notEqual(run.status, 0, run.output);
    assert.match(run.output, /protocol-imports: src\/protocol\/index\.ts → src\/services\/store\/index\.ts/);
  });
});
