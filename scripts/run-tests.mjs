#!/usr/bin/env node
// Runs every test/**/*.test.ts with node:test through tsx. Node 20's runner neither finds .ts files
// nor expands **, so we list them ourselves. Extra arguments filter by path substring.
// The reliability suite (test/reliability/suite/: fuzzing, faults under load, kill -9, soak) is heavier and
// runs on its own: `npm run test:reliability` passes --reliability, which runs those files and only those.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const filters = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const reliability = process.argv.includes('--reliability');
const flags = process.argv.slice(2).filter((a) => a.startsWith('--') && a !== '--reliability');
const SUITE = join('test', 'reliability', 'suite') + '/';

function list(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : list(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const files = list(join(root, 'test'))
  .map((f) => relative(root, f))
  .filter((f) => f.startsWith(SUITE) === reliability)
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
/**
 * node:test counts a skipped suite as one "skipped" however many tests it holds, so a run without the
 * database servers looked complete. Name what did not run, and the variables that would run it.
 */
const SERVERS = [
  {
    name: 'PostgreSQL',
    variable: 'AUTHSVC_TEST_PGURL',
    example: 'postgresql://postgres@127.0.0.1:5432/test',
    marker: /forEachDatabase\(|AUTHSVC_TEST_PGURL/,
  },
  {
    name: 'MariaDB/MySQL',
    variable: 'AUTHSVC_TEST_MYSQLURL',
    example: 'mysql://root@127.0.0.1:3306/test',
    marker: /forEachDatabase\(|AUTHSVC_TEST_MYSQLURL/,
  },
  {
    name: 'Redis',
    variable: 'AUTHSVC_TEST_REDISURL',
    example: 'redis://127.0.0.1:6379',
    marker: /AUTHSVC_TEST_REDISURL/,
  },
];

function skippedServersLine() {
  const unset = SERVERS.filter((s) => (process.env[s.variable] ?? '').trim() === '');
  const parts = unset
    .map((s) => ({ ...s, count: files.filter((f) => s.marker.test(readFileSync(join(root, f), 'utf8'))).length }))
    .filter((s) => s.count > 0)
    .map(
      (s) =>
        `${s.name} (${s.count} test file${s.count === 1 ? '' : 's'}; set ${s.variable}, e.g. ${s.variable}=${s.example})`,
    );
  return parts.length === 0 ? null : `NOT RUN: the suites on ${parts.join(', ')}`;
}

const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...flags, ...files], {
  cwd: root,
  stdio: 'inherit',
});
const skipped = skippedServersLine();
if (skipped !== null) console.log(`\n# ${skipped}`);
process.exit(result.status ?? 1);
