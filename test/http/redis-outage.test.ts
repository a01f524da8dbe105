/**
 * Redis dies mid-run: the server keeps answering what needs no replay check (rate limits on its own
 * store), refuses state-changing requests with 503 (docs/design.md#replay-during-a-redis-outage), says
 * so once at warn and in /health, and goes back to Redis when it returns. The test starts and kills its
 * OWN redis-server on a free port; the machine's Redis is never touched.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_RATE_POLICY } from '../../src/services/admission/index.js';
import { REDIS_DOWN_MESSAGE } from '../../src/services/admission/store.js';
import { freePort, hasRedisServer, startRedis, stopRedis } from '../helpers/redis.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const skip = hasRedisServer ? false : 'redis-server is not installed';

describe('a Redis outage through HTTP', { skip }, () => {
  let port: number;
  let redis: ChildProcess;
  let server: TestServer;
  before(async () => {
    port = await freePort();
    redis = await startRedis(port);
    server = await startTestServer({
      config: { rateLimits: DEFAULT_RATE_POLICY, redisUrl: `redis://127.0.0.1:${port}` },
    });
  });
  after(async () => {
    await server?.close();
    await stopRedis(redis);
  });

  const sessionNew = () =>
    server.seal({
      request: 'session-new',
      body: { ip_address: '192.0.2.1', user_agent: 't', user_id: null },
      reqid: 1,
      client_ipaddr: '192.0.2.1',
    });
  const sessionExists = () =>
    server.seal({ request: 'session-exists', body: { session_token: 'none' }, reqid: 1, client_ipaddr: '192.0.2.1' });
  const redisHealth = async (): Promise<unknown> =>
    ((await (await fetch(new URL('/health', server.url))).json()) as Record<string, unknown>)['redis'];

  it('reports redis ok while it answers', async () => {
    assert.equal((await server.post(sessionNew())).status, 200);
    assert.equal(await redisHealth(), 'ok');
  });

  it('refuses state-changing requests with 503 once Redis is killed, answers reads; reports it down, warned once', async () => {
    await stopRedis(redis);
    for (let i = 0; i < 5; i++) {
      const refused = await server.post(sessionNew());
      assert.equal(refused.status, 503);
      assert.equal(refused.headers.get('retry-after'), '1');
    }
    assert.equal((await server.post(sessionExists())).status, 200);
    assert.equal(await redisHealth(), 'down');
    const warned = server.logs.filter((l) => l.level === 'warn' && /redis unavailable/.test(l.message));
    assert.deepEqual(
      warned.map((l) => l.message),
      [REDIS_DOWN_MESSAGE],
    );
  });

  it('reports down from the start when Redis does not answer then', async () => {
    const lonely = await startTestServer({ config: { redisUrl: `redis://127.0.0.1:${await freePort()}` } });
    try {
      const health = (await (await fetch(new URL('/health', lonely.url))).json()) as Record<string, unknown>;
      assert.equal(health['redis'], 'down');
      const token = lonely.seal({ request: 'session-new', body: {}, reqid: 1, client_ipaddr: '192.0.2.1' });
      assert.equal((await lonely.post(token)).status, 503);
    } finally {
      await lonely.close();
    }
  });

  it('goes back to Redis when it returns', async () => {
    redis = await startRedis(port);
    const deadline = Date.now() + 15_000;
    while ((await redisHealth()) !== 'ok') {
      if (Date.now() > deadline) throw new Error('still not back on redis');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const token = sessionNew();
    assert.equal((await server.post(token)).status, 200);
    assert.equal((await server.post(token)).status, 401);
    assert.equal(server.logs.filter((l) => l.level === 'info' && /redis answers again/.test(l.message)).length, 1);
  });
});
