import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { PKG_DIR } from '../../src/package-dir.js';

const PROGRAM = join(PKG_DIR, 'test', 'client', 'frontend-program.ts');

function nonNullAssertions(file: string): number {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  let found = 0;
  const visit = (node: ts.Node): void => {
    if (ts.isNonNullExpression(node)) found += 1;
    node.forEachChild(visit);
  };
  visit(source);
  return found;
}

describe('the client types for a strict TypeScript frontend', () => {
  it('compile a program that uses success items without `!` (and keep the failure side typed)', () => {
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const run = spawnSync(
      process.execPath,
      [
        tsc,
        '--noEmit',
        '--strict',
        '--noUncheckedIndexedAccess',
        '--target',
        'es2022',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--types',
        'node',
        '--skipLibCheck',
        '--ignoreConfig',
        PROGRAM,
      ],
      { cwd: PKG_DIR, encoding: 'utf8' },
    );
    assert.equal(run.status, 0, run.stdout + run.stderr);
  });

  it('hold no non-null assertion in that program', () => {
    assert.equal(nonNullAssertions(PROGRAM), 0);
  });
});
