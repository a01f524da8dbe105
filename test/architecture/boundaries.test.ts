/**
 * The boundaries of .dependency-cruiser.cjs are what `npm run lint` enforces. These tests show that the
 * checker really fails on the violations it is there for: a copy of src/ gets planted dependencies from
 * the wire protocol up to the store, an import, a re-export and a dynamic import, each in a file of its
 * own, and each must be reported; the untouched copy must pass.
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

/** A copy of the tree with each line of `plants` appended to its file of src/; runs the lint's boundary check on it. */
function cruiseWith(plants: Record<string, string>): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'authsvc-boundaries-'));
  copies.push(dir);
  cpSync(join(PKG_DIR, 'src'), join(dir, 'src'), { recursive: true });
  for (const file of ['.dependency-cruiser.cjs', '.dependency-cruiser-known-violations.json', 'tsconfig.json']) {
    cpSync(join(PKG_DIR, file), join(dir, file));
  }
  symlinkSync(join(PKG_DIR, 'node_modules'), join(dir, 'node_modules'));
  for (const [file, plant] of Object.entries(plants)) appendFileSync(join(dir, 'src', file), `\n${plant}\n`);
  const run = spawnSync(
    process.execPath,
    [DEPCRUISE, 'src', '--config', '.dependency-cruiser.cjs', '--ignore-known', '--output-type', 'err'],
    { cwd: dir, encoding: 'utf8' },
  );
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** One kind of dependency from the wire protocol up to the store, each planted in a protocol file of its own. */
const PLANTS = {
  'an import': ['protocol/index.ts', "import '../services/store/index.js';"],
  'a re-export': ['protocol/envelope.ts', "export type { Store } from '../services/store/index.js';"],
  'a dynamic import': ['protocol/fernet.ts', "export const loadStore = () => import('../services/store/index.js');"],
} as const;

describe('the dependency boundaries', () => {
  it('hold for the source tree as it is', () => {
    const run = cruiseWith({});
    assert.equal(run.status, 0, run.output);
  });

  // One checker run for the three (each costs seconds of CPU): each is reported under its own file.
  describe('fail the lint on a dependency from src/protocol/ to src/services/store/index.ts', () => {
    const planted = Object.fromEntries(Object.values(PLANTS));
    let run: { status: number | null; output: string } | undefined;
    const cruised = (): { status: number | null; output: string } => (run ??= cruiseWith(planted));
    for (const [kind, [file]] of Object.entries(PLANTS)) {
      it(`as ${kind} (src/${file})`, () => {
        const { status, output } = cruised();
        assert.notEqual(status, 0, output);
        const violation = `protocol-imports: src/${file} → src/services/store/index.ts`;
        assert.ok(output.includes(violation), `${violation}\nnot in:\n${output}`);
      });
    }
  });
});
