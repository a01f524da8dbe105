/**
 * A quick measure of session-exists: start-up time of `node dist/bin.js`, then requests/s and latency
 * percentiles at a fixed concurrency for a fixed time, from a client in another process.
 *   npm run build && npx tsx bench/quick-session-exists.ts [concurrency=16] [seconds=10] [database=sqlite]
 *     [workers=1] [client=node]
 * - database: `sqlite` (a temporary file), `pg` or `mysql` (a fresh database on the server of
 *   AUTHSVC_TEST_PGURL / AUTHSVC_TEST_MYSQLURL, default the local test servers, dropped afterwards), or a full
 *   database URL used as it is;
 * - workers: the server's --workers;
 * - client: `node` (this process's own client: it spends CPU on the same machine) or `wrk` (one pre-sealed
 *   body sent again and again, which session-exists allows: it changes nothing and is not replay-checked).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '../src/client/index.js';
import { parseKeyring, sealJson } from '../src/protocol/index.js';
import { parseDatabaseUrl } from '../src/store/url.js';
import type { MysqlTarget, PgTarget } from '../src/store/url.js';
import { adminQuery, urlOf } from '../test/helpers/admin-sql.js';
import { closedLoop } from './lib/load.js';
import { percentile, startBenchServer } from './lib/server.js';

const concurrency = Number(process.argv[2] ?? 16);
const seconds = Number(process.argv[3] ?? 10);
const database = process.argv[4] ?? 'sqlite';
const workers = Number(process.argv[5] ?? 1);
const clientKind = process.argv[6] ?? 'node';
const dir = mkdtempSync(join(tmpdir(), 'authsvc-bench-'));

/** A fresh database on a server, and how to drop it. */
async function freshServerDatabase(kind: 'pg' | 'mysql'): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin =
    process.env[kind === 'pg' ? 'AUTHSVC_TEST_PGURL' : 'AUTHSVC_TEST_MYSQLURL'] ??
    (kind === 'pg' ? 'postgresql://postgres@127.0.0.1:5432/test' : 'mysql://root@127.0.0.1:3306/test');
  const parsed = parseDatabaseUrl(admin, dir);
  if (!parsed.ok || parsed.target.dialect === 'sqlite') throw new Error(`not a server URL: ${admin}`);
  const target: PgTarget | MysqlTarget = parsed.target;
  const name = `authsvc_bench_${process.pid}`;
  const quoted = kind === 'pg' ? `"${name}"` : `\`${name}\``;
  await adminQuery(target, `CREATE DATABASE ${quoted}`);
  return {
    url: urlOf({ ...target, database: name }),
    drop: () => adminQuery(target, `DROP DATABASE IF EXISTS ${quoted}${kind === 'pg' ? ' WITH (FORCE)' : ''}`),
  };
}

const server =
  database === 'sqlite'
    ? { url: 'sqlite:///bench.sqlite', drop: () => Promise.resolve() }
    : database === 'pg' || database === 'mysql'
      ? await freshServerDatabase(database)
      : { url: database, drop: () => Promise.resolve() };

const bench = await startBenchServer({ AUTHSVC_AUTHDB: server.url, AUTHSVC_WORKERS: String(workers) });
const { secret } = bench;
const url = bench.url;
const client = createClient({ url, secret });
const opened = await client.request(
  'session-new',
  { ip_address: '192.0.2.1', user_agent: 'bench', user_id: 1, expires: 1, extra_info_json: {} },
  { clientIp: '192.0.2.1' },
);
if (!opened.success) throw new Error('session-new failed');
const token = opened.response.session_token;

interface Measure {
  readonly requests: number;
  readonly failures: number;
  readonly rps: number;
  readonly p50_ms: string;
  readonly p99_ms: string;
}

async function withNodeClient(): Promise<Measure> {
  const { latencies, failures } = await closedLoop(
    concurrency,
    seconds,
    async () => (await client.request('session-exists', { session_token: token }, { clientIp: '192.0.2.1' })).success,
  );
  return {
    requests: latencies.length,
    failures,
    rps: Math.round(latencies.length / seconds),
    p50_ms: percentile(latencies, 0.5),
    p99_ms: percentile(latencies, 0.99),
  };
}

function withWrk(): Measure {
  const keyring = parseKeyring(secret);
  if (keyring === null) throw new Error('bad key');
  const body = sealJson(
    keyring,
    { request: 'session-exists', body: { session_token: token }, reqid: 'bench', client_ipaddr: '192.0.2.1' },
    { nowMs: Date.now() },
  );
  const script = join(dir, 'post.lua');
  writeFileSync(script, `wrk.method = "POST"\nwrk.body = "${body}"\nwrk.headers["Content-Type"] = "text/plain"\n`);
  const run = spawnSync('wrk', ['-t1', `-c${concurrency}`, `-d${seconds}s`, '--latency', '-s', script, url], {
    encoding: 'utf8',
  });
  const out = run.stdout;
  const ms = (text: string | undefined): string => {
    const m = /([\d.]+)(us|ms|s)/.exec(text ?? '');
    if (m === null) return 'n/a';
    const value = Number(m[1]);
    return (m[2] === 'us' ? value / 1000 : m[2] === 's' ? value * 1000 : value).toFixed(2);
  };
  return {
    requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? 0),
    failures: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
    rps: Math.round(Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0)),
    p50_ms: ms(/\s50%\s+(\S+)/.exec(out)?.[1]),
    p99_ms: ms(/\s99%\s+(\S+)/.exec(out)?.[1]),
  };
}

const measure = clientKind === 'wrk' ? withWrk() : await withNodeClient();
console.log(
  JSON.stringify({
    database: database.includes('://') ? database.replace(/\/\/[^@]*@/, '//…@') : database,
    workers,
    client: clientKind,
    startup_ms_wall: bench.startupMsWall,
    startup_ms_in_process: bench.startupMsInProcess,
    concurrency,
    seconds,
    ...measure,
  }),
);
client.close();
await bench.stop();
await server.drop();
rmSync(dir, { recursive: true, force: true });
