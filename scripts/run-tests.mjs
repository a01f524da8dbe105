#!/usr/bin/env node
// Runs every test/**/*.test.ts with node:test through tsx. Node 20's runner neither finds .ts files
// nor expands ** (trap T3), so we list them ourselves. Extra arguments filter by path substring.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const filters = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));

function list(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : list(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const files = list(join(root, 'test'))
  .map((f) => relative(root, f))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...flags, ...files], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
