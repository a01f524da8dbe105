/**
 * A quick measure of session-exists: start-up time of `node dist/main.js`, then requests/s and latency
 * percentiles at a fixed concurrency for a fixed time, from a client in another process.
 *   npm run build && npx tsx bench/quick-session-exists.ts [concurrency=16] [seconds=10]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '../src/client/index.js';
import { PKG_DIR } from '../src/config/paths.js';
import { generateFernetKey } from '../src/protocol/index.js';

const concurrency = Number(process.argv[2] ?? 16);
const seconds = Number(process.argv[3] ?? 10);
const dir = mkdtempSync(join(tmpdir(), 'authsvc-bench-'));
const secret = generateFernetKey();
const port = 20000 + Math.floor(Math.random() * 20000);

const started = performance.now();
const child = spawn(process.execPath, [join(PKG_DIR, 'dist', 'main.js')], {
  env: {
    PATH: process.env['PATH'] ?? '',
    AUTHSVC_SECRET: secret,
    AUTHSVC_PIISALT: 'bench-salt-bench',
    AUTHSVC_AUTHDB: 'sqlite:///bench.sqlite',
    AUTHSVC_BASEDIR: dir,
    AUTHSVC_PORT: String(port),
    AUTHSVC_ADMIN_PASSWORD: 'bench-password-1234',
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let startupMs = 0;
let reportedMs = 0;
await new Promise<void>((resolve, reject) => {
  let buffered = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const match = /"startup_ms":(\d+)/.exec(buffered);
    if (match && startupMs === 0) {
      startupMs = performance.now() - started;
      reportedMs = Number(match[1]);
      resolve();
    }
  });
  child.on('exit', (code) => reject(new Error(`server exited ${code}`)));
});
child.stdout.resume();

const client = createClient({ url: `http://127.0.0.1:${port}/`, secret });
const opened = await client.request(
  'session-new',
  { ip_address: '192.0.2.1', user_agent: 'bench', user_id: 1, expires: 1, extra_info_json: {} },
  { clientIp: '192.0.2.1' },
);
if (!opened.success) throw new Error('session-new failed');
const token = opened.response.session_token ?? '';

const latencies: number[] = [];
let failures = 0;
const deadline = performance.now() + seconds * 1000;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      const reply = await client.request('session-exists', { session_token: token }, { clientIp: '192.0.2.1' });
      latencies.push(performance.now() - t0);
      if (!reply.success) failures++;
    }
  }),
);
latencies.sort((a, b) => a - b);
const pct = (p: number): string =>
  (latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0).toFixed(2);
console.log(
  JSON.stringify({
    startup_ms_wall: Math.round(startupMs),
    startup_ms_in_process: reportedMs,
    concurrency,
    seconds,
    requests: latencies.length,
    failures,
    rps: Math.round(latencies.length / seconds),
    p50_ms: pct(0.5),
    p99_ms: pct(0.99),
  }),
);
child.kill('SIGTERM');
await new Promise((r) => child.on('exit', r));
rmSync(dir, { recursive: true, force: true });
