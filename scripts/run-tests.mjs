#!/usr/bin/env node
// Runs test/**/*.test.ts with node:test through tsx. Extra arguments filter by path substring; those
// starting with -- go to node's runner. The reliability suite (test/reliability/suite/: fuzzing, faults under
// load, kill -9, soak) is heavier and runs on its own: `npm run test:reliability` runs those files and only those.
import { spawnSync } from 'node:child_process';
import { existsSync, globSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const reliability = args.includes('--reliability');
const filters = args.filter((a) => !a.startsWith('--'));
const flags = args.filter((a) => a.startsWith('--') && a !== '--reliability');
const SUITE = 'test/reliability/suite/';

const files = globSync('test/**/*.test.ts', { cwd: root })
  .filter((f) => f.startsWith(SUITE) === reliability)
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
// The runner starts files in the order given. Those that start processes (the server, the CLI, npm, a browser)
// take longest: started first, they no longer leave one core busy alone for the last minute of the run. They
// import node:child_process or a helper that starts authsvc (test/cli/spawn.ts, admin-suite.ts,
// test/helpers/process.ts, test/helpers/suite.ts).
const STARTS_PROCESSES = /from '(node:child_process|[^']*\/(spawn|admin-suite|process|suite)\.js)'/;
const heavy = new Set(files.filter((f) => STARTS_PROCESSES.test(readFileSync(join(root, f), 'utf8'))));
files.sort((a, b) => Number(heavy.has(b)) - Number(heavy.has(a)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

// Most files wait on database servers, sockets and child processes: four at once on two cores ran the
// same tests in less than half the time of one at a time (node defaults to cores - 1). The reliability
// suite loads the machine itself and measures under that load, so its files run one at a time.
const concurrency = flags.some((f) => f.startsWith('--test-concurrency'))
  ? []
  : [`--test-concurrency=${reliability ? 1 : 4}`];

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

// The tests that run the command line run the built server (test/cli/spawn.ts): build it first, so that it is
// this source's. Incremental (the build info in node_modules/.cache): a tree built already takes a second or two;
// without dist/ the build info would say there is nothing to emit, so it goes with it.
const buildInfo = join(root, 'node_modules', '.cache', 'authsvc-build.tsbuildinfo');
if (!existsSync(join(root, 'dist', 'bin.js'))) rmSync(buildInfo, { force: true });
const build = spawnSync(
  process.execPath,
  [
    join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
    '-p',
    'tsconfig.build.json',
    '--incremental',
    '--tsBuildInfoFile',
    buildInfo,
  ],
  { cwd: root, stdio: 'inherit' },
);
if (build.status !== 0) {
  console.error('the build failed: the tests run the built server (npm run build)');
  process.exit(1);
}

// exit-promptly.mjs: node's runner passes --import on to each file's process (docs/development.md).
const preload = ['--import', 'tsx', '--import', './scripts/exit-promptly.mjs'];
// Every test file is a process of its own, and many start the server or the CLI: each compiled the same
// modules again. Node's compile cache keeps V8's code for them between processes and runs, inherited by every
// child (unless the caller chose a folder).
const compileCache = process.env.NODE_COMPILE_CACHE ?? join(root, 'node_modules', '.cache', 'authsvc-compile');
const result = spawnSync(process.execPath, [...preload, '--test', ...concurrency, ...flags, ...files], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, NODE_COMPILE_CACHE: compileCache },
});
const skipped = skippedServersLine();
if (skipped !== null) console.log(`\n# ${skipped}`);
process.exit(result.status ?? 1);
