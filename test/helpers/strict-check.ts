/** Type-checks files the way a frontend's strict project would: documents' code blocks, the frontend guide's flow. */
import { spawnSync } from 'node:child_process';
import type { SpawnSyncReturns } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PKG_DIR } from '../../src/package-dir.js';

/**
 * Writes `dir`/tsconfig.json (strict, nodenext, Node's types from this package) for `files`, with `paths` if given,
 * and runs the project's own tsc on it.
 */
export function strictCheck(
  dir: string,
  files: readonly string[],
  paths: Readonly<Record<string, readonly string[]>> = {},
): SpawnSyncReturns<string> {
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'es2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        types: ['node'],
        typeRoots: [join(PKG_DIR, 'node_modules', '@types')],
        skipLibCheck: true,
        ...(Object.keys(paths).length === 0 ? {} : { paths }),
      },
      files,
    }),
  );
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  return spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' });
}
