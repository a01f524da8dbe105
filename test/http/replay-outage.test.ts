/**
 * Replay at most once across a Redis outage and its recovery (docs/design.md#replay-during-a-redis-outage):
 * two instances share a redis-server of the test's own, each through a TCP proxy of its own,
 * so the test can cut one instance or both off Redis, or make a link silently lose bytes, while Redis
 * keeps its data. Every token is sent to every instance in every phase and its acceptances (200s of a
 * state-changing action) are counted: at most one each. The machine's Redis is never touched.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { after, afterEach, before, describe, it } from 'node:test';
import { DEFAULT_RATE_POLICY } from '../../src/services/admission/index.js';
import { FrozenClock } from '../helpers/clock.js';
import { freePort, hasRedisServer, startRedis, stopRedis } from '../helpers/redis.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';
import type { TcpProxy } from '../helpers/tcp-proxy.js';

const skip = hasRedisServer ? false : 'redis-server is not installed';

/** The promise: an instance is back on Redis within 5 s of Redis answering again. */
const BACK_WITHIN_MS = 5_000;

const freshIp = (): string => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

describe('replay across a Redis outage, two instances', { skip }, () => {
  let redis: ChildProcess;
  let proxyA: TcpProxy;
  let proxyB: TcpProxy;
  let a: TestServer;
  let b: TestServer;
  /** Acceptances per token, over every test of this file. */
  const accepted = new Map<string, number>();

  before(async () => {
    const port = await freePort();
    redis = await startRedis(port);
    proxyA = await startTcpProxy('127.0.0.1', port);
    proxyB = await startTcpProxy('127.0.0.1', port);
    const clock = new FrozenClock();
    const config = { rateLimits: DEFAULT_RATE_POLICY };
    a = await startTestServer({ clock, config: { ...config, redisUrl: `redis://127.0.0.1:${proxyA.port}` } });
    b = await startTestServer({
      clock,
      config: { ...config, redisUrl: `redis://127.0.0.1:${proxyB.port}`, keyring: a.keyring },
    });
  });
  // Every test starts with both instances on Redis, whatever the one before left behind.
  afterEach(async () => {
    proxyA.restore();
    proxyB.restore();
    await backOnRedis(a, 60_000);
    await backOnRedis(b, 60_000);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await proxyA?.close();
    await proxyB?.close();
    await stopRedis(redis);
  });

  /** A captured state-changing token (a fresh client address each, so no rate limit interferes). */
  const capture = (): string => {
    const ip = freshIp();
    return a.seal({
      request: 'session-new',
      body: { ip_address: ip, user_agent: 't', user_id: null },
      reqid: 1,
      client_ipaddr: ip,
    });
  };
  /** Sends the token; counts it when the action ran. */
  const send = async (server: TestServer, token: string): Promise<Response> => {
    const response = await server.post(token);
    if (response.status === 200) accepted.set(token, (accepted.get(token) ?? 0) + 1);
    return response;
  };
  const sendEverywhere = async (token: string): Promise<number[]> => [
    (await send(a, token)).status,
    (await send(b, token)).status,
  ];
  const redisHealth = async (server: TestServer): Promise<unknown> =>
    ((await (await fetch(new URL('/health', server.url))).json()) as Record<string, unknown>)['redis'];
  /** Polls /health until the instance is back on Redis; returns how long that took (ms). */
  const backOnRedis = async (server: TestServer, limitMs: number): Promise<number> => {
    const start = performance.now();
    while ((await redisHealth(server)) !== 'ok') {
      if (performance.now() - start > limitMs) throw new Error(`not back on redis within ${limitMs} ms`);
      await delay(50);
    }
    return performance.now() - start;
  };
  const read = (server: TestServer): Promise<Response> =>
    server.post(
      server.seal({
        request: 'session-exists',
        body: { session_token: 'no-such-session' },
        reqid: 1,
        client_ipaddr: freshIp(),
      }),
    );

  it('refuses, on both instances, during the outage and after it, a token accepted before it', async () => {
    const before = capture();
    const healthy = await sendEverywhere(before);

    proxyA.cut();
    proxyB.cut();
    const during = await sendEverywhere(before);
    const health = [await redisHealth(a), await redisHealth(b)];

    proxyA.restore();
    proxyB.restore();
    await backOnRedis(a, BACK_WITHIN_MS);
    await backOnRedis(b, BACK_WITHIN_MS);
    const recovered = await sendEverywhere(before);
    assert.deepEqual(
      { healthy, during, health, recovered },
      {
        healthy: [200, 401],
        during: [503, 503],
        health: ['down', 'down'],
        recovered: [401, 401],
      },
    );
  });

  it('accepts no token twice across an outage of both instances and its recovery', async () => {
    const tokens = [capture()];
    await sendEverywhere(tokens[0]!);

    proxyA.cut();
    proxyB.cut();
    tokens.push(capture());
    for (const token of tokens) await sendEverywhere(token);
    // State-changing requests are refused with 503 and Retry-After; reads need no replay check.
    const refused = await send(a, capture());
    const reads = [(await read(a)).status, (await read(b)).status];

    proxyA.restore();
    proxyB.restore();
    await backOnRedis(a, BACK_WITHIN_MS);
    await backOnRedis(b, BACK_WITHIN_MS);
    tokens.push(capture());
    for (const token of tokens) await sendEverywhere(token);
    assert.deepEqual(
      tokens.map((t) => accepted.get(t) ?? 0),
      [1, 1, 1],
    );
    assert.deepEqual([refused.status, refused.headers.get('retry-after'), reads], [503, '1', [200, 200]]);
  });

  it('accepts no token twice when only one instance loses Redis', async () => {
    const early = capture();
    await send(b, early);
    proxyA.cut();
    const late = capture();
    await send(b, late);
    const lonely = capture();
    for (const token of [early, late, lonely]) await sendEverywhere(token);
    proxyA.restore();
    await backOnRedis(a, BACK_WITHIN_MS);
    for (const token of [early, late, lonely]) await sendEverywhere(token);
    assert.deepEqual(
      [early, late, lonely].map((t) => accepted.get(t) ?? 0),
      [1, 1, 1],
    );
  });

  it('gets back on Redis by itself within 5 s after a link that silently lost bytes', async () => {
    const token = capture();
    proxyA.drop();
    // Commands go out and their answers never come: the instance falls back.
    await send(a, token);
    const health = await redisHealth(a);
    // Lost bytes for a few seconds, then the link heals under the same sockets (traps: ioredis would
    // keep that connection, desynchronised, and every command on it would time out).
    await delay(3_000);
    proxyA.restore();
    const tookMs = await backOnRedis(a, BACK_WITHIN_MS);
    const fresh = capture();
    assert.deepEqual({ health, fresh: await sendEverywhere(fresh) }, { health: 'down', fresh: [200, 401] });
    assert.ok(tookMs <= BACK_WITHIN_MS, `took ${Math.round(tookMs)} ms`);
  });

  it('counted at most one acceptance per token over the whole file', () => {
    const twice = [...accepted.values()].filter((n) => n > 1).length;
    assert.equal(twice, 0, `${twice} of ${accepted.size} tokens were accepted more than once`);
  });
});
