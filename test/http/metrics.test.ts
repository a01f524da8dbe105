/**
 * GET /metrics (the `metrics` item): what the server counts, read back as Prometheus reads it, after
 * driving actions through the real HTTP interface of one process. The sum over workers is in
 * test/reliability/metrics-workers.test.ts.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseRateLimits } from '../../src/services/admission/index.js';
import { parseAddressRange } from '../../src/services/metrics/peers.js';
import type { AddressRange } from '../../src/services/metrics/peers.js';
import { PKG_DIR } from '../../src/package-dir.js';
import { actionNames, generateFernetKey, parseKeyring, sealJson } from '../../src/protocol/index.js';
import type { MysqlTarget, PgTarget } from '../../src/services/store/url.js';
import { GOOD_PASSWORD, openSession, verifiedUser } from '../helpers/accounts.js';
import { forEachDatabase } from '../helpers/databases.js';
import { rawRequest } from '../helpers/http.js';
import { getFrom, parseScrape, sampleValue } from '../helpers/metrics.js';
import { freePort, hasRedisServer, startRedis, stopRedis } from '../helpers/redis.js';
import type { Sample } from '../helpers/metrics.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

const ranges = (...texts: string[]): AddressRange[] =>
  texts.map((text) => {
    const range = parseAddressRange(text);
    if (range === null) throw new Error(`bad range ${text}`);
    return range;
  });
const LOOPBACK = { allow: ranges('127.0.0.0/8', '::1') };
const MAX_BODY = 16 * 1024;

async function scrape(server: TestServer): Promise<Sample[]> {
  const response = await fetch(new URL('/metrics', server.url));
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parseScrape(await response.text());
}

const requests = (samples: Sample[], action: string, outcome: string): number =>
  sampleValue(samples, 'authsvc_requests_total', { action, outcome });
const refused = (samples: Sample[], reason: string): number =>
  sampleValue(samples, 'authsvc_transport_refused_total', { reason });

const envelope = (request: string, body: Record<string, unknown>, reqid: string | number = 1) => ({
  request,
  body,
  reqid,
  client_ipaddr: '203.0.113.7',
});
const newSession = { ip_address: '198.51.100.20', user_agent: 'agent', user_id: null, expires: 7, extra_info_json: {} };

describe('GET /metrics', () => {
  describe('with metrics 1', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({
        config: { metrics: LOOPBACK, userLockTries: 2, userLockTimeSeconds: 600, maxBodySize: MAX_BODY },
      });
    });
    after(() => server.close());

    it('counts each action by its outcome: success, the failure code, invalid', async () => {
      const before = await scrape(server);
      for (let i = 0; i < 3; i++) await openSession(server);
      const missing = await server.call('session-exists', { session_token: 'no-such-token-at-all' });
      assert.equal(missing.success, false);
      const invalid = await server.call('session-new', { ip_address: 'not an ip' });
      assert.equal(invalid.success, false);
      // Malformed envelopes: no reqid; a body that is not an object for a known action; an unknown action.
      assert.equal((await server.post(server.seal({ request: 'session-new', body: {} }))).status, 400);
      assert.equal((await server.post(server.seal(envelope('session-exists', [] as never)))).status, 400);
      assert.equal((await server.post(server.seal(envelope('drop-table-users', {})))).status, 400);

      const after = await scrape(server);
      const delta = (action: string, outcome: string): number =>
        requests(after, action, outcome) - requests(before, action, outcome);
      assert.equal(delta('session-new', 'success'), 3);
      assert.equal(delta('session-exists', 'session_not_found'), 1);
      assert.equal(delta('session-new', 'invalid_params'), 1);
      assert.equal(delta('session-exists', 'invalid'), 1);
      assert.equal(delta('unknown', 'invalid'), 2);
      // A client never names a series: its action name appears nowhere.
      assert.ok(!after.some((s) => Object.values(s.labels).includes('drop-table-users')));
      for (const s of after.filter((x) => x.name === 'authsvc_requests_total')) {
        assert.ok(
          s.labels['action'] === 'unknown' || actionNames.includes(s.labels['action'] as never),
          s.labels['action'],
        );
      }
      // The latency histogram saw each of them once.
      const count = (samples: Sample[], action: string): number =>
        sampleValue(samples, 'authsvc_request_duration_seconds_count', { action });
      assert.equal(count(after, 'session-new') - count(before, 'session-new'), 4);
      assert.equal(count(after, 'unknown') - count(before, 'unknown'), 2);
      const inf = sampleValue(after, 'authsvc_request_duration_seconds_bucket', { action: 'session-new', le: '+Inf' });
      assert.equal(inf, count(after, 'session-new'));
    });

    it('counts refused messages by reason: undecryptable, expired, replayed, host, size', async () => {
      const before = await scrape(server);
      assert.equal((await server.post('not a token')).status, 401);
      const otherKeys = parseKeyring(generateFernetKey());
      assert.ok(otherKeys !== null);
      const other = sealJson(otherKeys, envelope('session-new', newSession), { nowMs: server.clock.now() });
      assert.equal((await server.post(other)).status, 401);
      const old = server.seal(envelope('session-new', newSession), server.clock.now() - 3600_000);
      assert.equal((await server.post(old)).status, 401);
      const once = server.seal(envelope('session-new', newSession, 'replay-me'));
      assert.equal((await server.post(once)).status, 200);
      assert.equal((await server.post(once)).status, 401);
      const foreign = await rawRequest(server.url, { body: once, headers: { host: 'evil.example' } });
      assert.equal(foreign.status, 401);
      const huge = await server.post('x'.repeat(MAX_BODY + 1));
      assert.equal(huge.status, 413);

      const after = await scrape(server);
      const delta = (reason: string): number => refused(after, reason) - refused(before, reason);
      assert.deepEqual(
        ['undecryptable', 'expired', 'replayed', 'host', 'size'].map((r) => [r, delta(r)]),
        [
          ['undecryptable', 2],
          ['expired', 1],
          ['replayed', 1],
          ['host', 1],
          ['size', 1],
        ],
      );
      // The first use of the replayed token counted as a success, the refusals as no action at all.
      assert.equal(requests(after, 'session-new', 'success') - requests(before, 'session-new', 'success'), 1);
    });

    it('counts a lock-out once, however many failures follow it', async () => {
      await verifiedUser(server, 'locked@example.org');
      const before = sampleValue(await scrape(server), 'authsvc_lockouts_total');
      for (let i = 0; i < 4; i++) {
        const token = await openSession(server);
        const reply = await server.call('user-login', {
          session_token: token,
          email: 'locked@example.org',
          password: `wrong ${i} ${GOOD_PASSWORD}`,
        });
        assert.equal(reply.success, false);
      }
      const after = await scrape(server);
      assert.equal(sampleValue(after, 'authsvc_lockouts_total') - before, 1);
      assert.equal(requests(after, 'user-login', 'wrong_credentials') >= 1, true);
      assert.equal(requests(after, 'user-login', 'temporarily_locked') >= 2, true);
    });

    it('exports the hash queue, the database state and the process metrics', async () => {
      const samples = await scrape(server);
      assert.equal(sampleValue(samples, 'authsvc_password_hashes_running'), 0);
      assert.equal(sampleValue(samples, 'authsvc_password_hashes_waiting'), 0);
      assert.equal(sampleValue(samples, 'authsvc_database_up'), 1);
      assert.equal(sampleValue(samples, 'authsvc_database_outages_total'), 0);
      assert.ok(sampleValue(samples, 'process_cpu_user_seconds_total') > 0);
      assert.ok(samples.some((s) => s.name === 'nodejs_eventloop_lag_seconds'));
      // No Redis configured: no Redis gauge.
      assert.ok(!samples.some((s) => s.name === 'authsvc_redis_up'));
    });

    it('is answered for a disallowed Host with 401, like every path, and counted as a host refusal', async () => {
      const response = await getFrom(server.url, '/metrics', { host: 'evil.example' });
      assert.equal(response.status, 401);
    });

    it('does not count the scrapes themselves nor /health', async () => {
      const first = await scrape(server);
      await fetch(new URL('/health', server.url));
      const second = await scrape(server);
      const total = (samples: Sample[]): number =>
        samples.filter((s) => s.name === 'authsvc_requests_total').reduce((sum, s) => sum + s.value, 0);
      assert.equal(total(second), total(first));
    });
  });

  describe('the purge', () => {
    it('counts a purge that ran, the rows it deleted by table, and how long it took', async () => {
      const server = await startTestServer({ config: { metrics: LOOPBACK } });
      try {
        await openSession(server, null, 1);
        await openSession(server, null, 1);
        const before = await scrape(server);
        server.clock.advance(2 * 86_400_000);
        await server.app.purgeNow();
        const after = await scrape(server);
        const ran = (samples: Sample[]) => sampleValue(samples, 'authsvc_purges_total', { result: 'ran' });
        const rows = (samples: Sample[], table: string) => sampleValue(samples, 'authsvc_purged_rows_total', { table });
        assert.equal(ran(after) - ran(before), 1);
        assert.equal(rows(after, 'sessions') - rows(before, 'sessions'), 2);
        assert.equal(rows(after, 'apikeys') - rows(before, 'apikeys'), 0);
        assert.ok(sampleValue(after, 'authsvc_purge_last_duration_seconds') > 0);
      } finally {
        await server.close();
      }
    });
  });

  describe('policy reloads', () => {
    it('counts a reload that puts a policy in force and one that is refused', async (t) => {
      const dir = mkdtempSync(join(tmpdir(), 'authsvc-metrics-'));
      t.after(() => rmSync(dir, { recursive: true, force: true }));
      const path = join(dir, 'policy.json');
      copyFileSync(join(PKG_DIR, 'policy', 'default.json'), path);
      const server = await startTestServer({ config: { metrics: LOOPBACK, permissionsPath: path } });
      try {
        const reloads = async (result: string): Promise<number> =>
          sampleValue(await scrape(server), 'authsvc_policy_reloads_total', { result });
        assert.deepEqual([await reloads('ok'), await reloads('refused')], [0, 0]);
        assert.equal(server.app.reloadPolicy().ok, true);
        writeFileSync(path, '{ "not": "a policy" }');
        assert.equal(server.app.reloadPolicy().ok, false);
        assert.equal(server.app.reloadPolicy().ok, false);
        assert.deepEqual([await reloads('ok'), await reloads('refused')], [1, 2]);
      } finally {
        await server.close();
      }
    });
  });

  describe('rate-limited requests', () => {
    it('counts each 429 under its action as rate-limited', async () => {
      const parsed = parseRateLimits('session:60;burst:3', actionNames);
      assert.ok(parsed.ok && parsed.value !== null);
      const server = await startTestServer({ config: { metrics: LOOPBACK, rateLimits: parsed.value } });
      try {
        const statuses: number[] = [];
        for (let i = 0; i < 7; i++) {
          const response = await server.post(server.seal(envelope('session-new', newSession, i)));
          statuses.push(response.status);
        }
        assert.deepEqual(statuses, [200, 200, 200, 429, 429, 429, 429]);
        const samples = await scrape(server);
        assert.equal(requests(samples, 'session-new', 'success'), 3);
        assert.equal(requests(samples, 'session-new', 'rate-limited'), 4);
      } finally {
        await server.close();
      }
    });
  });

  describe('who may read it', () => {
    it('is not there (404) for a peer outside metricsallow', async () => {
      const server = await startTestServer({ config: { metrics: { allow: ranges('127.0.0.1') } } });
      try {
        assert.equal((await getFrom(server.url, '/metrics', { localAddress: '127.0.0.1' })).status, 200);
        const other = await getFrom(server.url, '/metrics', { localAddress: '127.0.0.2' });
        assert.equal(other.status, 404);
        assert.equal(other.text, 'HTTP 404: Not found.\n');
      } finally {
        await server.close();
      }
    });

    it('by default is served to loopback peers only; metricsallow widens it', async (t) => {
      const address = Object.values(networkInterfaces())
        .flat()
        .find((i) => i !== undefined && !i.internal && i.family === 'IPv4')?.address;
      if (address === undefined) return t.skip('no network interface besides loopback');
      const config = { listen: address, allowedHosts: [address] };
      const closed = await startTestServer({ config: { ...config, metrics: LOOPBACK } });
      try {
        assert.equal((await getFrom(closed.url, '/metrics')).status, 404);
      } finally {
        await closed.close();
      }
      const open = await startTestServer({ config: { ...config, metrics: { allow: ranges('::1', `${address}/32`) } } });
      try {
        assert.equal((await getFrom(open.url, '/metrics')).status, 200);
      } finally {
        await open.close();
      }
    });
  });

  describe('with metrics 0 (the default)', () => {
    it('has no /metrics at all', async () => {
      const server = await startTestServer();
      try {
        const response = await fetch(new URL('/metrics', server.url));
        assert.equal(response.status, 404);
      } finally {
        await server.close();
      }
    });
  });
});

describe('metrics of the stores behind the server', () => {
  describe('a Redis outage', { skip: hasRedisServer ? false : 'redis-server is not installed' }, () => {
    it('counts the fall-back once and shows redis down', async () => {
      const port = await freePort();
      const redis = await startRedis(port);
      const server = await startTestServer({ config: { metrics: LOOPBACK, redisUrl: `redis://127.0.0.1:${port}` } });
      try {
        assert.equal((await server.post(server.seal(envelope('session-new', newSession, 'r1')))).status, 200);
        let samples = await scrape(server);
        assert.deepEqual(
          [sampleValue(samples, 'authsvc_redis_up'), sampleValue(samples, 'authsvc_redis_fallbacks_total')],
          [1, 0],
        );
        await stopRedis(redis);
        // While Redis is down a state-changing request cannot be checked for replay: 503
        // (docs/design.md#replay-during-a-redis-outage).
        for (let i = 0; i < 3; i++) {
          assert.equal((await server.post(server.seal(envelope('session-new', newSession, `r${i + 2}`)))).status, 503);
        }
        samples = await scrape(server);
        assert.deepEqual(
          [sampleValue(samples, 'authsvc_redis_up'), sampleValue(samples, 'authsvc_redis_fallbacks_total')],
          [0, 1],
        );
      } finally {
        await server.close();
        await stopRedis(redis);
      }
    });
  });

  forEachDatabase(
    (db) => {
      it('counts the requests the database could not answer, and the outage once', async () => {
        const target = (await db.fresh()) as PgTarget | MysqlTarget;
        const proxy = await startTcpProxy(target.host, target.port);
        const server = await startTestServer({
          database: { ...target, host: proxy.host, port: proxy.port },
          config: { metrics: LOOPBACK },
        });
        try {
          const exists = async (reqid: string): Promise<number> =>
            (await server.post(server.seal(envelope('session-exists', { session_token: 'x'.repeat(20) }, reqid))))
              .status;
          assert.equal(await exists('before'), 200);
          proxy.cut();
          assert.deepEqual([await exists('down-1'), await exists('down-2')], [503, 503]);
          let samples = await scrape(server);
          assert.equal(sampleValue(samples, 'authsvc_database_errors_total'), 2);
          assert.equal(sampleValue(samples, 'authsvc_database_outages_total'), 1);
          assert.equal(sampleValue(samples, 'authsvc_database_up'), 0);
          assert.equal(requests(samples, 'session-exists', 'db_unavailable'), 2);
          proxy.restore();
          let status = 0;
          for (let i = 0; i < 50 && status !== 200; i++) {
            status = await exists(`after-${i}`);
            if (status !== 200) await sleep(200);
          }
          assert.equal(status, 200);
          samples = await scrape(server);
          assert.equal(sampleValue(samples, 'authsvc_database_up'), 1);
          assert.equal(sampleValue(samples, 'authsvc_database_outages_total'), 1);
        } finally {
          proxy.restore();
          await server.close();
          await proxy.close();
        }
      });
    },
    ['pg'],
  );
});

describe('docs/operations/monitoring.md, "Metrics"', () => {
  const doc = readFileSync(join(PKG_DIR, 'docs', 'operations', 'monitoring.md'), 'utf8');
  const section = doc.slice(doc.indexOf('\n## Metrics\n'), doc.indexOf('\n## ', doc.indexOf('\n## Metrics\n') + 5));
  /** Only with --workers N (checked in test/reliability/metrics-workers.test.ts) or with redisurl. */
  const CONDITIONAL = new Set(['authsvc_metrics_processes', 'authsvc_redis_up']);

  it('has alert rules on lock-outs, 429s and the database, on metrics a scrape has (checked below)', () => {
    const rules =
      /<!-- checked-by: test\/http\/metrics\.test\.ts -->\s*```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const exprs = [...rules.matchAll(/^\s*expr: (.*)$/gm)].map((m) => m[1] ?? '');
    assert.ok(exprs.some((e) => e.includes('authsvc_lockouts_total')));
    assert.ok(exprs.some((e) => e.includes('outcome="rate-limited"')));
    assert.ok(exprs.some((e) => e.includes('authsvc_database_up')));
  });

  it('names only metrics a scrape has, and every authsvc metric a scrape has', async () => {
    const named = new Set(
      [...section.matchAll(/\b((?:authsvc|process|nodejs)_[a-z_]+[a-z])\b/g)].map((m) => m[1] ?? ''),
    );
    assert.ok(named.size > 15, [...named].join(' '));
    const server = await startTestServer({ config: { metrics: LOOPBACK } });
    try {
      const text = await (await fetch(new URL('/metrics', server.url))).text();
      const families = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1] ?? ''));
      const samples = new Set(parseScrape(text).map((s) => s.name));
      const missing = [...named].filter((n) => !families.has(n) && !samples.has(n) && !CONDITIONAL.has(n));
      assert.deepEqual(missing, []);
      const undocumented = [...families].filter((f) => f.startsWith('authsvc_') && !named.has(f));
      assert.deepEqual(undocumented, []);
    } finally {
      await server.close();
    }
  });
});
