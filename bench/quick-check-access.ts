/**
 * A quick measure of user-check-access over the real protocol (policy decision + the one query on
 * the users): requests/s and latency percentiles at a fixed concurrency for a fixed time, first from
 * the Node client in another process, then from wrk (when installed) replaying one sealed request
 * (allowed: user-check-access does not change state, so it is not refused as a replay).
 *   npm run build && npx tsx bench/quick-check-access.ts [concurrency=16] [seconds=10]
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from '../src/client/index.js';
import { parseKeyring, sealJson } from '../src/protocol/index.js';
import { closedLoop } from './lib/load.js';
import { percentile, startBenchServer } from './lib/server.js';

const concurrency = Number(process.argv[2] ?? 16);
const seconds = Number(process.argv[3] ?? 10);
const server = await startBenchServer();
const { url, secret } = server;

// The superuser viewing the anonymous user's public dataset: allowed, then users 1 and 2 are read.
const body = {
  user_id: 1,
  user_role: 'superuser',
  action: 'view',
  target_name: 'dataset',
  target_owner: 2,
  target_visibility: 'public',
  target_sharedwith: '',
};
const client = createClient({ url, secret });
const first = await client.request('user-check-access', body, { clientIp: '192.0.2.1' });
if (!first.success) throw new Error(`user-check-access failed: ${JSON.stringify(first)}`);

const { latencies, failures } = await closedLoop(
  concurrency,
  seconds,
  async () => (await client.request('user-check-access', body, { clientIp: '192.0.2.1' })).success,
);
console.log(
  JSON.stringify({
    client: 'node',
    concurrency,
    seconds,
    requests: latencies.length,
    failures,
    rps: Math.round(latencies.length / seconds),
    p50_ms: percentile(latencies, 0.5),
    p99_ms: percentile(latencies, 0.99),
  }),
);

if (spawnSync('wrk', ['--version']).error === undefined) {
  const keyring = parseKeyring(secret);
  if (keyring === null) throw new Error('key');
  // sealJson gives the HTTP body itself (standard base64 of the Fernet token).
  const sealed = sealJson(keyring, { request: 'user-check-access', body, reqid: 'wrk', client_ipaddr: '192.0.2.1' });
  const script = join(server.basedir, 'post.lua');
  writeFileSync(script, `wrk.method = "POST"\nwrk.body = "${sealed}"\n`);
  const wrk = spawnSync(
    'wrk',
    ['-t', '2', '-c', String(concurrency), '-d', `${seconds}s`, '--latency', '-s', script, url],
    { encoding: 'utf8' },
  );
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(wrk.stdout)?.[1];
  const p50 = /^\s+50%\s+(\S+)/m.exec(wrk.stdout)?.[1];
  const p99 = /^\s+99%\s+(\S+)/m.exec(wrk.stdout)?.[1];
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(wrk.stdout)?.[1] ?? '0';
  console.log(
    JSON.stringify({ client: 'wrk', concurrency, seconds, rps: Number(rps), p50, p99, non2xx: Number(non2xx) }),
  );
}

client.close();
await server.stop();
