/**
 * The hot reads side by side in one run: requests/s, latency percentiles and the server's CPU per
 * request (from /proc: the server process and its workers, not this load generator) for each action at a
 * fixed concurrency, closed loop, every request freshly sealed by the Node client and every reply checked.
 *   npm run build && npx tsx bench/hot-reads.ts [concurrency=16] [seconds=8] [actions=session-exists,user-check-access,apikey-verify-nosession] [NAME=value ...]
 * Each `NAME=value` sets the server's environment (e.g. `AUTHSVC_WORKERS=2`, or an `AUTHSVC_RATELIMITS` high enough not to refuse).
 * Actions it knows: session-exists, user-check-access, apikey-verify, apikey-verify-nosession.
 */
import { createClient } from '../src/client/index.js';
import { closedLoop } from './lib/load.js';
import { percentile, processTreeCpuSeconds, startBenchServer } from './lib/server.js';

const concurrency = Number(process.argv[2] ?? 16);
const seconds = Number(process.argv[3] ?? 8);
const actions = (process.argv[4] ?? 'session-exists,user-check-access,apikey-verify-nosession').split(',');
const serverEnv = Object.fromEntries(
  process.argv
    .slice(5)
    .filter((pair) => pair.includes('='))
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);
const server = await startBenchServer(serverEnv);
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

const rows = [];
for (const action of actions) {
  const body = await bodyFor(action);
  await closedLoop(concurrency, 1, async () => (await call(action, body)).success); // warm-up
  const cpu0 = processTreeCpuSeconds(server.pid);
  const { latencies, failures } = await closedLoop(
    concurrency,
    seconds,
    async () => (await call(action, body)).success,
  );
  const cpu = processTreeCpuSeconds(server.pid) - cpu0;
  rows.push({
    action,
    requests: latencies.length,
    failures,
    rps: Math.round(latencies.length / seconds),
    p50_ms: percentile(latencies, 0.5),
    p99_ms: percentile(latencies, 0.99),
    server_cpu_us_per_request: Math.round((cpu * 1e6) / Math.max(1, latencies.length)),
  });
}
console.table(rows);
console.log(JSON.stringify({ concurrency, seconds, startup_ms: server.startupMsInProcess, rows }));
await server.stop();
