/**
 * `npm run bench`: authsvc against the protocol's floor, on this machine, in one run.
 *   flock /work/bench.lock npm run bench -- [--help for the flags]
 * For each database and worker count it starts authsvc from dist (first start, then a restart, both
 * timed to healthy), makes fixtures through the protocol, and drives each action closed-loop at each
 * concurrency (warm-up, then a measured window), every request freshly sealed and every reply checked.
 * The same run measures the floor (bench/baseline.ts) and one password verify's CPU (the hash limit).
 * Figures are reported, never asserted. Writes <out>/latest.json and <out>/latest.md.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, release, tmpdir, type as osType } from 'node:os';
import { join, relative } from 'node:path';
import { HASH_BOUND, benchCaller, prepare } from './lib/actions.js';
import { prepareDatabase } from './lib/databases.js';
import type { BenchDatabase } from './lib/databases.js';
import { startFloor } from './lib/floor.js';
import type { FloorKind } from './lib/floor.js';
import { measureHashLimit, serverPassHash } from './lib/hash-limit.js';
import type { HashLimit } from './lib/hash-limit.js';
import { measurePoint } from './lib/measure.js';
import type { Point } from './lib/measure.js';
import { USAGE, parseOptions } from './lib/options.js';
import type { BenchOptions } from './lib/options.js';
import { cutProfiles, writeSummary } from './lib/profile.js';
import type { Window } from './lib/profile.js';
import { markdown, SETTLE_MS } from './lib/report.js';
import type { ActionPoint, BenchResults, ServerRun, Startup } from './lib/report.js';
import { processTreePssMb, processTreeRssMb, startBenchServer } from './lib/server.js';
import type { BenchServer } from './lib/server.js';

const say = (line: string): void => {
  process.stderr.write(`bench: ${line}\n`);
};

/** The floor's points: bare, and with session-exists's read or session-new's write and a log line. */
interface FloorPoints {
  readonly bare: readonly Point[];
  readonly read: readonly Point[];
  readonly write: readonly Point[];
}

/**
 * The floor at each concurrency, with a session-exists-shaped request (it answers every request alike);
 * `kind` adds session-exists's database read or session-new's write, and a log line (baseline.ts).
 */
async function measureFloor(
  options: BenchOptions,
  profileDir: string | null,
  kind: FloorKind = 'bare',
): Promise<BenchResults['floor']> {
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

async function serverRun(
  options: BenchOptions,
  database: BenchDatabase,
  workers: number,
  floor: FloorPoints,
  hashLimit: HashLimit,
  profiles: string[],
): Promise<ServerRun> {
  const db = await prepareDatabase(database, `w${workers}`);
  const rawProfiles = options.cpuProf ? mkdtempSync(join(tmpdir(), 'authsvc-prof-')) : null;
  const nodeArgs = rawProfiles === null ? [] : ['--cpu-prof', `--cpu-prof-dir=${rawProfiles}`];
  try {
    const started = await startTwice(serverEnv(options, db.authdb, workers), nodeArgs, options.fromSource);
    const { server } = started;
    const { call, client } = benchCaller(server.url, server.secret);
    const points: ActionPoint[] = [];
    const windows: Window[] = [];
    let after: number[] = [];
    let settled: number[] = [];
    try {
      for (const action of options.actions) {
        const iteration = await prepare(action, call);
        for (const concurrency of options.concurrency) {
          say(`${database}, --workers ${workers}: ${action}, ${concurrency} clients`);
          const point = await measurePoint(iteration, concurrency, options.seconds, options.warmupSeconds, server.pid);
          const cpuOf = (points: readonly Point[]): number | undefined =>
            points.find((f) => f.concurrency === concurrency)?.server_cpu_us;
          const floorCpu = cpuOf(floor.bare);
          // The floor that also does this action's kind of database work: a write for session-new, a read for the rest.
          const dbFloorCpu = HASH_BOUND.has(action)
            ? undefined
            : cpuOf(action === 'session-new' ? floor.write : floor.read);
          points.push({
            action,
            ...point,
            floor_ratio: floorCpu ? Number((point.server_cpu_us / floorCpu).toFixed(2)) : null,
            db_floor_ratio: dbFloorCpu ? Number((point.server_cpu_us / dbFloorCpu).toFixed(2)) : null,
            hash_share: HASH_BOUND.has(action) ? Number((point.rps / hashLimit.perSecond).toFixed(3)) : null,
            parallel_hash_share: HASH_BOUND.has(action)
              ? Number((point.rps / hashLimit.parallelPerSecond).toFixed(3))
              : null,
          });
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
  say('hash limit');
  const hashLimit = await measureHashLimit(serverPassHash(options.serverEnv['AUTHSVC_PASSHASH']));
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
  const runs: ServerRun[] = [];
  const floors = { bare: floor.points, read: withDb.read, write: withDb.write };
  for (const database of options.databases)
    for (const workers of options.workers)
      runs.push(await serverRun(options, database, workers, floors, hashLimit, profiles));
  const footprints = [];
  for (const database of options.databases)
    for (const workers of options.footprint) footprints.push(await footprint(options, database, workers));
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
      'glibc tunables': 'as npm start, the Dockerfile and the systemd unit set them',
      'cpu profiling': options.cpuProf,
      server: options.fromSource ? 'src/ through tsx (not comparable)' : 'dist/',
      'run took seconds': Math.round((performance.now() - began) / 1000),
    },
    hash_limit: hashLimit,
    floor,
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
else await main(options);
