/**
 * Logins per second with the default password hash: a real server (`node dist/bin.js`, SQLite), one
 * verified user, `concurrency` clients each opening a session and logging in, again and again.
 *   npm run build && npx tsx bench/logins.ts [concurrency=8] [seconds=10] [workers=1]
 */
import { join } from 'node:path';
import { createClient } from '../src/client/index.js';
import { openStore } from '../src/store/index.js';
import { closedLoop } from './lib/load.js';
import { percentile, startBenchServer } from './lib/server.js';
import { sqlOf } from '../test/helpers/sql.js';

const concurrency = Number(process.argv[2] ?? 8);
const seconds = Number(process.argv[3] ?? 10);
const workers = Number(process.argv[4] ?? 1);
const password = 'plinth-orchard-vapour-42';
const server = await startBenchServer({ AUTHSVC_WORKERS: String(workers) });

const client = createClient({ url: server.url, secret: server.secret, timeoutMs: 30_000 });
const ip = { clientIp: '192.0.2.1' };
const signup = await client.request('user-new', { email: 'bench@example.org', password, full_name: 'Bench User' }, ip);
if (!signup.success) throw new Error(`sign-up failed: ${signup.failure_reason}`);
const store = openStore({ dialect: 'sqlite', filename: join(server.basedir, 'bench.sqlite') });
await sqlOf(store)('users')
  .where('user_id', signup.response.user_id)
  .update({ email_verified: true, is_active: true, user_role: 'authenticated' });
await store.close();

// Only the login is timed: the session it needs is opened first.
const { latencies, failures } = await closedLoop(concurrency, seconds, async () => {
  const session = await client.request(
    'session-new',
    { ip_address: '192.0.2.1', user_agent: 'bench', user_id: null, expires: 1, extra_info_json: {} },
    ip,
  );
  const startedAt = performance.now();
  const login = await client.request(
    'user-login',
    {
      session_token: session.success ? session.response.session_token : '',
      email: 'bench@example.org',
      password,
    },
    ip,
  );
  return { ok: login.success, startedAt };
});
console.log(
  JSON.stringify({
    workers,
    concurrency,
    seconds,
    logins: latencies.length,
    failures,
    logins_per_s: Math.round(latencies.length / seconds),
    p50_ms: percentile(latencies, 0.5),
    p99_ms: percentile(latencies, 0.99),
  }),
);
client.close();
await server.stop();
