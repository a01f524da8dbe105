/**
 * The hot reads side by side in one run: requests/s, latency percentiles and the server's CPU per
 * request (from /proc: the server process and its workers, not this load generator) for each action at a
 * fixed concurrency, closed loop, every request freshly sealed by the Node client and every reply checked.
 *   npm run build && npx tsx bench/hot-reads.ts [concurrency=16] [seconds=8] [actions=session-exists,user-check-access,apikey-verify-nosession] [NAME=value ...] [--node-arg ...]
 * Each `NAME=value` sets the server's environment (e.g. `AUTHSVC_WORKERS=2`, or an `AUTHSVC_RATELIMITS` high enough not to refuse).
 * `--rounds=N` measures every action N times, interleaved, and reports the least CPU per request (and
 * the median), the best requests/s and the median percentiles: on a shared machine the least is the
 * figure least inflated by neighbours. `--server=…/bin.js` runs another build (A/B against a baseline
 * whose package directory holds that dist/). Every other argument starting with `--` goes to the server's node, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`
 * (NODE_OPTIONS refuses --cpu-prof); the profile is written when the server exits, and covers the fixtures
 * and warm-up too, so profile one action per run (bench/profile-summary.ts reads it).
 * Actions it knows: session-exists, session-new, user-check-access, user-check-limit, user-lookup-email,
 * apikey-verify, apikey-verify-nosession.
 */
import { createClient } from '../src/client/index.js';
import { closedLoop } from './lib/load.js';
import { percentile, processTreeCpuSeconds, startBenchServer } from './lib/server.js';

const concurrency = Number(process.argv[2] ?? 16);
const seconds = Number(process.argv[3] ?? 8);
const actions = (process.argv[4] ?? 'session-exists,user-check-access,apikey-verify-nosession').split(',');
const extra = process.argv.slice(5);
const roundsArg = extra.find((arg) => arg.startsWith('--rounds='));
const rounds = roundsArg === undefined ? 1 : Number(roundsArg.slice('--rounds='.length));
const scriptArg = extra.find((arg) => arg.startsWith('--server='));
const script = scriptArg?.slice('--server='.length);
const nodeArgs = extra.filter((arg) => arg.startsWith('--') && arg !== roundsArg && arg !== scriptArg);
const serverEnv = Object.fromEntries(
  extra
    .filter((pair) => !pair.startsWith('--') && pair.includes('='))
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);
const server = await startBenchServer(serverEnv, { nodeArgs, ...(script === undefined ? {} : { script }) });
// The bench speaks actions that older builds may not have, so it sends them untyped.
const client = createClient({ url: server.url, secret: server.secret, timeoutMs: 30_000 });
const ip = { clientIp: '192.0.2.1' };
type Reply = { success: boolean; response: Record<string, unknown> };
const call = (action: string, body: Record<string, unknown>): Promise<Reply> =>
  (client.request as (a: string, b: Record<string, unknown>, o: typeof ip) => Promise<Reply>)(action, body, ip);

async function must(action: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const reply = await call(action, body);
  if (!reply.success) throw new Error(`${action} failed: ${JSON.stringify(reply)}`);
  return reply.response;
}

const session = await must('session-new', {
  ip_address: '192.0.2.1',
  user_agent: 'bench',
  user_id: 1,
  expires: 1,
  extra_info_json: {},
});
const sessionToken = String(session['session_token']);
const superuser = { user_id: 1, user_role: 'superuser' };
const keyIssue = {
  ...superuser,
  issuer: 'bench',
  audience: 'api',
  subject: ['/api/a'],
  apiversion: 1,
  ip_address: '192.0.2.1',
};

async function bodyFor(action: string): Promise<Record<string, unknown>> {
  switch (action) {
    case 'session-exists':
      return { session_token: sessionToken };
    case 'session-new':
      return { ip_address: '192.0.2.1', user_agent: 'bench', user_id: 1, expires: 1, extra_info_json: {} };
    case 'user-check-limit':
      return { ...superuser, limit_name: 'max_requests', value_to_check: 10 };
    case 'user-lookup-email': {
      const listed = await must('user-list', { user_id: 1 });
      const [admin] = listed['user_info'] as Array<{ email: string }>;
      if (admin === undefined) throw new Error('no user 1');
      return { email: admin.email };
    }
    case 'user-check-access':
      // The superuser viewing the anonymous user's public dataset: allowed, then users 1 and 2 are read.
      return {
        ...superuser,
        action: 'view',
        target_name: 'dataset',
        target_owner: 2,
        target_visibility: 'public',
        target_sharedwith: '',
      };
    case 'apikey-verify': {
      const issued = await must('apikey-new', {
        ...keyIssue,
        expires_days: 1,
        not_valid_before: 0,
        user_agent: 'bench',
        session_token: sessionToken,
      });
      return { ...superuser, apikey_dict: JSON.parse(String(issued['apikey'])) as unknown };
    }
    case 'apikey-verify-nosession': {
      const issued = await must('apikey-new-nosession', {
        ...keyIssue,
        expires_seconds: 86_400,
        not_valid_before: 0,
        refresh_expires: 86_400,
        refresh_nbf: 0,
      });
      return { ...superuser, apikey_dict: JSON.parse(String(issued['apikey'])) as unknown };
    }
    default:
      throw new Error(`no body for ${action}`);
  }
}

interface Round {
  readonly requests: number;
  readonly failures: number;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly cpuUs: number;
}

/** One measured window of `action` after a second of warm-up. */
async function measure(action: string, body: Record<string, unknown>): Promise<Round> {
  await closedLoop(concurrency, 1, async () => (await call(action, body)).success); // warm-up
  const cpu0 = processTreeCpuSeconds(server.pid);
  const { latencies, failures } = await closedLoop(
    concurrency,
    seconds,
    async () => (await call(action, body)).success,
  );
  const cpu = processTreeCpuSeconds(server.pid) - cpu0;
  return {
    requests: latencies.length,
    failures,
    rps: Math.round(latencies.length / seconds),
    p50: Number(percentile(latencies, 0.5)),
    p99: Number(percentile(latencies, 0.99)),
    cpuUs: Math.round((cpu * 1e6) / Math.max(1, latencies.length)),
  };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
};

// Rounds interleave the actions, so a neighbour's burst on a shared machine spreads over all of them;
// the least CPU per request of the rounds is the figure least inflated by that contention.
const bodies = new Map<string, Record<string, unknown>>();
for (const action of actions) bodies.set(action, await bodyFor(action));
const measured = new Map<string, Round[]>(actions.map((action) => [action, []]));
for (let round = 0; round < rounds; round++) {
  for (const action of actions) measured.get(action)?.push(await measure(action, bodies.get(action) ?? {}));
}
const rows = actions.map((action) => {
  const all = measured.get(action) ?? [];
  return {
    action,
    requests: all.reduce((sum, r) => sum + r.requests, 0),
    failures: all.reduce((sum, r) => sum + r.failures, 0),
    rps: Math.max(...all.map((r) => r.rps)),
    p50_ms: median(all.map((r) => r.p50)),
    p99_ms: median(all.map((r) => r.p99)),
    server_cpu_us_per_request: Math.min(...all.map((r) => r.cpuUs)),
    ...(rounds > 1 ? { cpu_us_median: median(all.map((r) => r.cpuUs)) } : {}),
  };
});
console.table(rows);
console.log(JSON.stringify({ concurrency, seconds, rounds, startup_ms: server.startupMsInProcess, rows }));
await server.stop();
