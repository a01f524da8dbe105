/**
 * `npm run bench`: authsvc against the protocol's floor, on this machine, in one run.
 *   npm run bench -- [--help for the flags]      (on a machine others share, take turns: figures are the machine's)
 * For each database and worker count it starts authsvc from dist (first start, then a restart, both
 * timed to healthy), makes fixtures through the protocol, and drives each action closed-loop at each
 * concurrency (warm-up, then a measured window), every request freshly sealed and every reply checked.
 * The same run measures the floor (bench/baseline.ts) and one password verify's CPU (the hash limit),
 * both at its start and again at its end (lib/judge.ts takes the less disturbed measurement).
 * Figures are reported, never asserted. Writes <out>/latest.json and <out>/latest.md.
 * `--quick a,b` (`--hot-reads`, `--logins`) measures only those actions on one server (lib/quick.ts).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, release, tmpdir, type as osType } from 'node:os';
import { join, relative } from 'node:path';
import { benchCaller, prepare } from './lib/actions.js';
import { prepareDatabase } from './lib/databases.js';
import type { BenchDatabase } from './lib/databases.js';
import { startFloor } from './lib/floor.js';
import type { FloorKind } from './lib/floor.js';
import { measureHashLimit, serverPassHash } from './lib/hash-limit.js';
import { highestHashLimit, judged, leastFloor } from './lib/judge.js';
import type { RawActionPoint } from './lib/judge.js';
import { measurePoint } from './lib/measure.js';
import type { Point } from './lib/measure.js';
import { USAGE, parseOptions } from './lib/options.js';
import type { BenchOptions } from './lib/options.js';
import { cutProfiles, writeSummary } from './lib/profile.js';
import { runInstructions } from './lib/instructions.js';
import { runQuick } from './lib/quick.js';
import type { Window } from './lib/profile.js';
import { markdown, SETTLE_MS } from './lib/report.js';
import type { BenchResults, ServerRun, Startup } from './lib/report.js';
import { runScale } from './lib/scale.js';
import { processTreePssMb, processTreeRssMb, startBenchServer } from './lib/server.js';
import type { BenchServer } from './lib/server.js';

const say = (line: string): void => {
  process.stderr.write(`bench: ${line}\n`);
};

/**
 * The floor at each concurrency, with a session-exists-shaped request (it answers every request alike);
 * `kind` adds session-exists's database read or session-new's write, and a log line (baseline.ts).
 */
async function measureFloor(
  options: BenchOptions,
  profileDir: string | null,
  kind: FloorKind = 'bare',
): Promise<{ readonly memory: BenchResults['floor']['memory']; readonly points: readonly Point[] }> {
  const floor = await startFloor(profileDir === null ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`], kind);
  const idle = processTreeRssMb(floor.pid);
  const { call, client } = benchCaller(floor.url, floor.secret);
  const token = 'b'.repeat(43);
  const iteration = async (): Promise<{ ok: boolean; startedAt: number }> => {
    const startedAt = performance.now();
    return { ok: (await call('session-exists', { session_token: token })).success, startedAt };
  };
  const points: Point[] = [];
  try {
    for (const concurrency of options.concurrency) {
      say(`floor${kind === 'bare' ? '' : ` (${kind})`}, ${concurrency} clients`);
      points.push(await measurePoint(iteration, concurrency, options.seconds, options.warmupSeconds, floor.pid));
    }
    return { memory: { first_start_idle_mb: idle, idle_mb: idle, after_mb: processTreeRssMb(floor.pid) }, points };
  } finally {
    client.close();
    await floor.stop();
  }
}

interface Started {
  readonly server: BenchServer;
  readonly startup: Startup;
  readonly firstIdle: number[];
  readonly idle: number[];
  readonly idlePss: number;
}

/** A first start on an empty database, stopped, then a restart on it: the restart is the server returned. */
async function startTwice(
  env: Record<string, string>,
  nodeArgs: readonly string[],
  fromSource: boolean,
): Promise<Started> {
  const first = await startBenchServer(env, { fromSource });
  const firstIdle = processTreeRssMb(first.pid);
  await first.stop({ keepBasedir: true });
  const server = await startBenchServer(env, {
    nodeArgs,
    fromSource,
    reuse: { basedir: first.basedir, secret: first.secret },
  });
  // A moment for the workers' start-up garbage to be collected or not, as an operator would see it.
  await new Promise((resolve) => setTimeout(resolve, 500));
  return {
    server,
    firstIdle,
    idle: processTreeRssMb(server.pid),
    idlePss: processTreePssMb(server.pid),
    startup: {
      first_start_ms: first.healthyMsWall,
      restart_listening_ms: server.startupMsWall,
      restart_healthy_ms: server.healthyMsWall,
      restart_in_process_ms: server.startupMsInProcess,
      restart_cpu_ms: server.startupCpuMs,
    },
  };
}

function serverEnv(options: BenchOptions, authdb: string, workers: number): Record<string, string> {
  return { AUTHSVC_AUTHDB: authdb, AUTHSVC_WORKERS: String(workers), ...options.serverEnv };
}

async function footprint(options: BenchOptions, database: BenchDatabase, workers: number) {
  const db = await prepareDatabase(database, `f${workers}`);
  try {
    say(`${database}, --workers ${workers}: start-up and idle memory`);
    const started = await startTwice(serverEnv(options, db.authdb, workers), [], options.fromSource);
    await started.server.stop();
    return {
      database,
      workers,
      startup: started.startup,
      memory: { first_start_idle_mb: started.firstIdle, idle_mb: started.idle, idle_pss_mb: started.idlePss },
    };
  } finally {
    await db.drop();
  }
}

/** A server run whose points are not yet set against the floors and the hash limit (judge.ts). */
type RawServerRun = Omit<ServerRun, 'points'> & { readonly points: readonly RawActionPoint[] };

async function serverRun(
  options: BenchOptions,
  database: BenchDatabase,
  workers: number,
  profiles: string[],
): Promise<RawServerRun> {
  const db = await prepareDatabase(database, `w${workers}`);
  const rawProfiles = options.cpuProf ? mkdtempSync(join(tmpdir(), 'authsvc-prof-')) : null;
  const nodeArgs = rawProfiles === null ? [] : ['--cpu-prof', `--cpu-prof-dir=${rawProfiles}`];
  try {
    const started = await startTwice(serverEnv(options, db.authdb, workers), nodeArgs, options.fromSource);
    const { server } = started;
    const { call, client } = benchCaller(server.url, server.secret);
    const points: RawActionPoint[] = [];
    const windows: Window[] = [];
    let after: number[] = [];
    let settled: number[] = [];
    try {
      for (const action of options.actions) {
        const iteration = await prepare(action, call);
        for (const concurrency of options.concurrency) {
          say(`${database}, --workers ${workers}: ${action}, ${concurrency} clients`);
          const point = await measurePoint(iteration, concurrency, options.seconds, options.warmupSeconds, server.pid);
          points.push({ action, ...point });
          windows.push({
            label: `${database}-w${workers}-${action}-c${concurrency}`,
            fromUs: point.window_us[0],
            toUs: point.window_us[1],
          });
        }
      }
      after = processTreeRssMb(server.pid);
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      settled = processTreeRssMb(server.pid);
    } finally {
      client.close();
      await server.stop();
    }
    if (rawProfiles !== null) {
      const out = join(options.outDir, 'profiles');
      profiles.push(...cutProfiles(rawProfiles, out, `${database}-w${workers}`, windows));
    }
    return {
      database,
      workers,
      startup: started.startup,
      memory: {
        first_start_idle_mb: started.firstIdle,
        idle_mb: started.idle,
        idle_pss_mb: started.idlePss,
        after_mb: after,
        settled_mb: settled,
      },
      points,
    };
  } finally {
    if (rawProfiles !== null) rmSync(rawProfiles, { recursive: true, force: true });
    await db.drop();
  }
}

async function main(options: BenchOptions): Promise<void> {
  const began = performance.now();
  const machine = {
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cores: availableParallelism(),
    node: process.version,
    os: `${osType()} ${release()}`,
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    loadavg_at_start: Number((loadavg()[0] ?? 0).toFixed(2)),
  };
  mkdirSync(options.outDir, { recursive: true });
  const profileDir = join(options.outDir, 'profiles');
  if (options.cpuProf) {
    rmSync(profileDir, { recursive: true, force: true });
    mkdirSync(profileDir, { recursive: true });
  }
  const passhash = serverPassHash(options.serverEnv['AUTHSVC_PASSHASH']);
  say('hash limit');
  const hashLimitAtStart = await measureHashLimit(passhash);
  const floorProfiles = options.cpuProf ? mkdtempSync(join(tmpdir(), 'authsvc-prof-')) : null;
  const floor = await measureFloor(options, floorProfiles);
  const profiles: string[] = [];
  if (floorProfiles !== null) {
    const windows = floor.points.map((p) => ({
      label: `floor-c${p.concurrency}`,
      fromUs: p.window_us[0],
      toUs: p.window_us[1],
    }));
    profiles.push(...cutProfiles(floorProfiles, profileDir, 'floor', windows));
    rmSync(floorProfiles, { recursive: true, force: true });
  }
  const withDb = {
    read: (await measureFloor(options, null, 'read')).points,
    write: (await measureFloor(options, null, 'write')).points,
    koa_read: (await measureFloor(options, null, 'koa-read')).points,
  };
  const rawRuns: RawServerRun[] = [];
  for (const database of options.databases)
    for (const workers of options.workers) rawRuns.push(await serverRun(options, database, workers, profiles));
  const footprints = [];
  for (const database of options.databases)
    for (const workers of options.footprint) footprints.push(await footprint(options, database, workers));
  // The yardsticks again, now at the end: the less disturbed of the two measurements is used (judge.ts).
  const floorAtEnd = await measureFloor(options, null);
  say('hash limit, again');
  const hashLimitAtEnd = await measureHashLimit(passhash);
  const hashLimit = highestHashLimit(hashLimitAtStart, hashLimitAtEnd);
  const floors = { bare: leastFloor(floor.points, floorAtEnd.points), read: withDb.read, write: withDb.write };
  const runs: ServerRun[] = rawRuns.map((run) => ({
    ...run,
    points: run.points.map((point) => judged(point, floors, hashLimit)),
  }));
  if (options.cpuProf) writeSummary(profileDir, profiles);
  const results: BenchResults = {
    machine,
    settings: {
      databases: options.databases,
      workers: options.workers,
      clients: options.concurrency,
      'seconds per point': options.seconds,
      'warm-up seconds': options.warmupSeconds,
      'server environment':
        Object.keys(options.serverEnv).length === 0 ? 'defaults' : JSON.stringify(options.serverEnv),
      'rate limits and login back-off': options.serverEnv['AUTHSVC_RATELIMITS'] === undefined ? 'off' : 'as set',
      'cpu profiling': options.cpuProf,
      server: options.fromSource ? 'src/ through tsx (not comparable)' : 'dist/',
      'run took seconds': Math.round((performance.now() - began) / 1000),
    },
    hash_limit: hashLimit,
    hash_limit_measured: [hashLimitAtStart, hashLimitAtEnd],
    floor: {
      memory: floor.memory,
      points: floors.bare,
      measured: { start: floor.points, end: floorAtEnd.points },
    },
    floor_with_db: withDb,
    runs,
    footprint: footprints,
    profiles: profiles.map((p) => relative(options.outDir, p)),
  };
  writeFileSync(join(options.outDir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  const md = markdown(results);
  writeFileSync(join(options.outDir, 'latest.md'), md);
  process.stdout.write(md);
}

let options: BenchOptions | 'help';
try {
  options = parseOptions(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
  process.exit(2);
}
if (options === 'help') process.stdout.write(`${USAGE}\n`);
else if (options.scale !== null) await runScale(options, options.scale);
else if (options.quick?.instructions != null)
  await runInstructions(options, options.quick, { warmup: 3000, requests: options.quick.instructions });
else if (options.quick !== null) await runQuick(options, options.quick);
else await main(options);
