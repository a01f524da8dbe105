/**
 * Soak: mixed load at a fixed rate on a real process (--workers 2, SQLite) for AUTHSVC_SOAK_SECONDS
 * (default 20 s; the full soak is 300): no request fails, and after a warm-up the resident memory
 * (VmRSS) and the open file descriptors of the primary and of each worker stay flat. The figures come
 * from /proc/<pid>, so they are the process's own, not this test's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AuthsvcProcess } from '../../helpers/process.js';
import { envInt, keepAlive, procFigures, sendRaw, spawnOn, sqliteFile } from '../../helpers/suite.js';
import { checkAccessBody } from '../../helpers/requests.js';

const SECONDS = envInt('AUTHSVC_SOAK_SECONDS', 20);
const RATE = envInt('AUTHSVC_SOAK_RATE', 40); // requests per second
/** The first quarter (at least 5 s) warms up: caches, JIT, the SQLite page cache, the pools. */
const WARMUP_S = Math.max(5, Math.floor(SECONDS / 4));
/** Generous: RSS moves with the garbage collector; a leak grows without bound, this does not. */
const RSS_TOLERANCE = { factor: 1.25, slackKb: 24 * 1024 };
const FD_SLACK = 8;

interface Sample {
  readonly t: number;
  readonly pid: number;
  readonly rssKb: number;
  readonly fds: number;
}

describe(`soak: ${SECONDS} s of mixed load at ${RATE} requests/s`, () => {
  const db = sqliteFile();
  let server: AuthsvcProcess;
  before(async () => {
    server = await spawnOn(db.target, { workers: 2 });
  });
  after(async () => {
    await server.stop();
    db.remove();
  });

  it('answers every request and keeps memory and open files flat after the warm-up', async (t) => {
    const agent = keepAlive(8);
    let requests = 0;
    const actions = new Set<string>();
    const call = async (action: string, body: Record<string, unknown>): Promise<Record<string, unknown>> => {
      requests++;
      actions.add(action);
      const sent = await sendRaw(server.port, server.seal(action, body), agent);
      assert.equal(sent.status, 200, `${action}: HTTP ${sent.status}`);
      return server.open(sent.text);
    };
    const opened = await call('session-new', {
      ip_address: '192.0.2.1',
      user_agent: 'ua',
      user_id: null,
      expires: 7,
      extra_info_json: {},
    });
    const token = String((opened['response'] as Record<string, unknown>)['session_token']);
    const signup = await call('user-new', {
      email: 'soak@example.org',
      password: 'plinth-orchard-vapour-42',
      full_name: 'S',
    });
    assert.equal(signup['success'], true);

    /** One request whose success is expected (or not): the reply is in the message when it is not so. */
    const expect = async (action: string, body: Record<string, unknown>, success = true) => {
      const reply = await call(action, body);
      assert.equal(reply['success'], success, `${action}: ${JSON.stringify(reply).slice(0, 300)}`);
      return reply;
    };
    let n = 0;
    /** The mix: reads, writes, password checks, access decisions, API keys; each with its expected outcome. */
    const mix: Array<() => Promise<unknown>> = [
      () => expect('session-exists', { session_token: token }),
      async () => {
        const r = await expect('session-new', {
          ip_address: '192.0.2.2',
          user_agent: 'ua',
          user_id: null,
          expires: 1,
          extra_info_json: { n },
        });
        const s = String((r['response'] as Record<string, unknown>)['session_token']);
        await expect('session-delete', { session_token: s });
      },
      async () => {
        // A failed login ends the session it came with: each gets a session of its own.
        const r = await expect('session-new', {
          ip_address: '192.0.2.3',
          user_agent: 'ua',
          user_id: null,
          expires: 1,
          extra_info_json: {},
        });
        const s = String((r['response'] as Record<string, unknown>)['session_token']);
        await expect('user-login', { session_token: s, email: 'soak@example.org', password: 'not it' }, false);
      },
      () =>
        expect('user-new', { email: `soak-${++n}@example.org`, password: 'plinth-orchard-vapour-42', full_name: 'S' }),
      () => expect('user-check-access', checkAccessBody(1, 'superuser')),
      async () => {
        const r = await expect('apikey-new-nosession', {
          issuer: 'f',
          audience: 'a',
          subject: 's',
          apiversion: 1,
          expires_seconds: 600,
          not_valid_before: 0,
          refresh_expires: 600,
          refresh_nbf: 0,
          user_id: 1,
          user_role: 'superuser',
          ip_address: '192.0.2.1',
        });
        const key = JSON.parse(String((r['response'] as Record<string, unknown>)['apikey'])) as unknown;
        const use = { apikey_dict: key, user_id: 1, user_role: 'superuser' };
        await expect('apikey-verify-nosession', use);
        await expect('apikey-revoke-nosession', use);
      },
      () => expect('user-lookup-email', { email: 'soak@example.org' }),
    ];

    const workers = ((await server.health()).body['workers'] as { list: Array<{ pid: number }> }).list.map(
      (w) => w.pid,
    );
    const pids = [server.child.pid ?? 0, ...workers];
    const samples: Sample[] = [];
    const failures: string[] = [];
    const inflight = new Set<Promise<unknown>>();
    let sent = 0;
    const started = performance.now();
    const elapsed = (): number => (performance.now() - started) / 1000;
    let nextSample = 0;
    // Open loop at a fixed rate: request k starts at k / RATE seconds, whatever the answers take.
    while (elapsed() < SECONDS) {
      if (elapsed() >= nextSample) {
        for (const pid of pids) {
          const figures = await procFigures(pid);
          assert.ok(figures !== null, `process ${pid} is gone`);
          samples.push({ t: nextSample, pid, ...figures });
        }
        nextSample++;
      }
      const due = Math.floor(elapsed() * RATE);
      while (sent < due) {
        const task = mix[sent++ % mix.length]!().catch((error: unknown) => {
          failures.push(error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error));
        });
        inflight.add(task);
        void task.finally(() => inflight.delete(task));
      }
      await sleep(5);
    }
    await Promise.all(inflight);
    agent.destroy();

    // Windows after the warm-up: the first and the last third of what is left.
    const steady = samples.filter((s) => s.t >= WARMUP_S);
    const span = SECONDS - WARMUP_S;
    const early = (s: Sample): boolean => s.t < WARMUP_S + span / 3;
    const late = (s: Sample): boolean => s.t >= SECONDS - span / 3;
    const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    const lines: string[] = [];
    for (const pid of pids) {
      const mine = steady.filter((s) => s.pid === pid);
      const rssEarly = mean(mine.filter(early).map((s) => s.rssKb));
      const rssLate = mean(mine.filter(late).map((s) => s.rssKb));
      const fdEarly = Math.max(...mine.filter(early).map((s) => s.fds));
      const fdLate = Math.max(...mine.filter(late).map((s) => s.fds));
      lines.push(
        `${pid === server.child.pid ? 'primary' : 'worker'} ${pid}: RSS ${Math.round(rssEarly / 1024)} → ` +
          `${Math.round(rssLate / 1024)} MB, open fds ${fdEarly} → ${fdLate}`,
      );
      assert.ok(
        rssLate <= rssEarly * RSS_TOLERANCE.factor + RSS_TOLERANCE.slackKb,
        `RSS of ${pid} grew from ${rssEarly} to ${rssLate} kB`,
      );
      assert.ok(fdLate <= fdEarly + FD_SLACK, `open files of ${pid} grew from ${fdEarly} to ${fdLate}`);
    }
    const summary =
      `soak summary: ${SECONDS} s, ${sent} operations at ${RATE}/s (${requests} requests of ${actions.size} actions), ` +
      `${failures.length} failed; ` +
      lines.join('; ');
    t.diagnostic(summary);
    console.log(summary);
    assert.deepEqual(failures.slice(0, 5), [], `${failures.length} failures`);
    assert.ok(sent >= SECONDS * RATE * 0.9, `${sent} operations started`);
    assert.deepEqual(
      server.logs.filter((l) => l['level'] === 'error' || l['status'] === 500),
      [],
    );
  });
});
