/**
 * Several instances behave as one server (issue 13): two instances over one database and one Redis see
 * each other's sessions, lock-outs, replay refusals and rate limits. The machine's Redis is shared with
 * other test runs, so every run uses addresses and emails of its own.
 */
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { parseRateLimits } from '../../src/services/admission/index.js';
import type { RatePolicy } from '../../src/services/admission/index.js';
import { actionNames } from '../../src/protocol/index.js';
import { openSession } from '../helpers/accounts.js';
import { FrozenClock } from '../helpers/clock.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer, TestServerOptions } from '../helpers/server.js';

const REDIS_URL = process.env['AUTHSVC_TEST_REDISURL']?.trim() ?? '';
const skip = REDIS_URL === '' ? 'AUTHSVC_TEST_REDISURL is not set' : false;

function rates(text: string): RatePolicy {
  const parsed = parseRateLimits(text, actionNames);
  if (!parsed.ok || parsed.value === null) throw new Error(`bad test policy ${text}`);
  return parsed.value;
}

/** An address no other run uses (the buckets in the shared Redis outlive a run by their refill time). */
const freshIp = (): string => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

const sessionNew = (ip: string): Record<string, unknown> => ({
  request: 'session-new',
  body: { ip_address: ip, user_agent: 'test', user_id: null },
  reqid: 1,
  client_ipaddr: ip,
});

/** Two instances on one database, one Redis, one key and one (frozen) clock. */
async function twoInstances(
  database: Pick<TestServerOptions, 'database'>,
  limits: string,
): Promise<[TestServer, TestServer]> {
  const clock = new FrozenClock();
  const config = { rateLimits: rates(limits), redisUrl: REDIS_URL };
  const a = await startTestServer({ ...database, clock, config });
  const b = await startTestServer({ ...database, clock, config: { ...config, keyring: a.keyring } });
  return [a, b];
}

const status = async (server: TestServer, token: string): Promise<number> => (await server.post(token)).status;

describe('two instances on one Redis', { skip }, () => {
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    [a, b] = await twoInstances({}, 'session:120;burst:150');
  });
  after(async () => {
    await a?.close();
    await b?.close();
  });

  it('share the limits: exactly 150 of 300 session-new across both, then the exact refill', async () => {
    const ip = freshIp();
    let passed = 0;
    for (let i = 0; i < 300; i++) {
      const server = i % 2 === 0 ? a : b;
      if ((await status(server, server.seal(sessionNew(ip)))) === 200) passed++;
    }
    assert.equal(passed, 150);
    a.clock.advance(500);
    assert.equal(await status(b, b.seal(sessionNew(ip))), 200);
    assert.equal(await status(a, a.seal(sessionNew(ip))), 429);
  });

  it('accept a captured state-changing token exactly once', async () => {
    const token = a.seal(sessionNew(freshIp()));
    const statuses = [await status(a, token), await status(b, token), await status(a, token), await status(b, token)];
    assert.deepEqual(statuses, [200, 401, 401, 401]);
  });

  it('share the per-email limits', async () => {
    const email = `victim-${randomInt(1e9)}@example.org`;
    const forgot = (server: TestServer) =>
      server.seal({
        request: 'user-sendemail-forgotpass',
        body: { email_address: email },
        reqid: 1,
        client_ipaddr: freshIp(),
      });
    assert.deepEqual(
      [await status(a, forgot(a)), await status(b, forgot(b)), await status(a, forgot(a))],
      [200, 200, 429],
    );
  });

  it('report redis ok in /health', async () => {
    for (const server of [a, b]) {
      const health = (await (await fetch(new URL('/health', server.url))).json()) as Record<string, unknown>;
      assert.equal(health['redis'], 'ok');
    }
  });
});

describe('scale-out: two instances over one database and one Redis', { skip }, () => {
  forEachDatabase(
    (db) => {
      let a: TestServer;
      let b: TestServer;
      before(async () => {
        [a, b] = await twoInstances({ database: await db.fresh() }, 'user-new:3');
      });
      after(async () => {
        await a?.close();
        await b?.close();
      });

      it('see each other’s sessions', async () => {
        const token = await openSession(a);
        assert.equal((await b.call('session-exists', { session_token: token })).success, true);
      });

      it('see each other’s replay refusals', async () => {
        const token = a.seal(sessionNew(freshIp()));
        assert.deepEqual([await status(a, token), await status(b, token)], [200, 401]);
      });

      it('see each other’s rate limits', async () => {
        const ip = freshIp();
        const userNew = (server: TestServer, i: number) =>
          server.seal({
            request: 'user-new',
            body: { email: `u${i}-${randomInt(1e9)}@example.org`, password: 'a long enough password', full_name: 'U' },
            reqid: i,
            client_ipaddr: ip,
          });
        for (let i = 0; i < 3; i++) assert.equal(await status(a, userNew(a, i)), 200);
        assert.equal(await status(b, userNew(b, 3)), 429);
      });

      it('see each other’s lock-outs', async () => {
        const check = (server: TestServer, password: string) =>
          server.call('user-passcheck-nosession', { email: 'admin@example.org', password });
        // userlocktries 10: the failure that exceeds it locks.
        for (let i = 0; i < 11; i++) await check(i % 2 === 0 ? a : b, 'wrong password');
        const locked = await check(b, 'correct horse battery staple');
        assert.equal(locked.success, false, JSON.stringify(locked));
        assert.equal(
          !locked.success && locked.failure_reason,
          'user is temporarily locked after too many failed logins',
        );
      });
    },
    ['pg', 'mysql'],
  );
});
