/**
 * The admission store shared by instances: Redis through ioredis, one Lua script per admission
 * (redis-script.ts). Options follow docs/design.md#ioredis-no-offline-queue-short-timeouts: no offline queue and short
 * timeouts, so a Redis that is down or hanging fails a request in about 100 ms and the fallback (fallbackStore,
 * store.ts) answers.
 * TLS (`rediss://`), user and password come from the URL.
 *
 * A connection that lost bytes stays open in ioredis, every later answer matched to the wrong command,
 * so every command times out for as long as it lives. ioredis cannot see that; a ping that
 * gets no answer over an open connection can, and replaces the connection (docs/design.md#replay-during-a-redis-outage:
 * back on Redis within 5 s of it answering).
 */
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Bucket } from './buckets.js';
import { cellOf, toMicros } from './buckets.js';
import { ADMIT_LUA, FAILURE_LUA } from './redis-script.js';
import type { Admission, AdmissionStore, ReplayEntry } from './store.js';
import { BACKOFF_MEMORY_MS, backoffWaitMs, rateLimited } from './store.js';

export interface RedisStoreOptions {
  /** Prefix of every key, so deployments (and test runs) sharing a Redis never collide. */
  readonly prefix?: string;
  readonly commandTimeoutMs?: number;
  readonly connectTimeoutMs?: number;
  readonly backoffMemoryMs?: number;
}

export interface RedisAdmissionStore extends AdmissionStore {
  /** `host:port`, never the password of the URL. */
  readonly address: string;
  /** Resolves when Redis answers; the fallback probes with it while Redis is down. */
  ping(): Promise<void>;
  /** Resolves once connected (start-up may await it so that the first requests use Redis). */
  ready(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

type Reply = [number] | [1, string, number];

/** `host:port` of a redis:// or rediss:// URL (6379 when it names no port). */
export function redisAddress(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || '127.0.0.1'}:${parsed.port || '6379'}`;
  } catch {
    return 'the configured redisurl';
  }
}

export function redisAdmissionStore(url: string, options: RedisStoreOptions = {}): RedisAdmissionStore {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: options.commandTimeoutMs ?? 150,
    connectTimeout: options.connectTimeoutMs ?? 500,
    enableAutoPipelining: true,
    // Keep reconnecting in the background, at most every second, for as long as the store lives: a
    // probe's second plus this second stay within the 5 s promised for getting back on Redis.
    retryStrategy: (times) => Math.min(times * 100, 1000),
    // A command whose answer was lost has already been answered (503, or the local store): sending it
    // again on the next connection would apply it twice.
    autoResendUnfulfilledCommands: false,
    lazyConnect: false,
  });
  // Connection errors surface as failed commands; without a listener ioredis would print each one.
  redis.on('error', () => undefined);
  const prefix = options.prefix ?? 'authsvc:';
  const run = script(redis);
  const memoryMs = options.backoffMemoryMs ?? BACKOFF_MEMORY_MS;

  const admit = async (buckets: readonly Bucket[], replay: ReplayEntry | undefined, nowMs: number) => {
    const nowUs = toMicros(nowMs);
    const keys = buckets.map((b) => prefix + b.key);
    if (replay !== undefined) keys.push(`${prefix}r:${replay.key}`);
    const ttl = replay === undefined ? 1 : Math.max(1, Math.ceil(replay.expiresAtMs - nowMs));
    const args = [nowUs, buckets.length, replay === undefined ? 0 : 1, ttl];
    for (const b of buckets) {
      const cell = cellOf(b);
      args.push(cell.intervalUs, cell.toleranceUs);
    }
    const reply = (await run(ADMIT_LUA, keys, args.map(String))) as Reply;
    if (reply[0] === 0) return { kind: 'ok' } satisfies Admission;
    if (reply[0] === 2) return { kind: 'replayed' } satisfies Admission;
    return rateLimited(buckets, Number(reply[2]) - 1, Number(reply[1]));
  };

  return {
    address: redisAddress(url),
    admit,
    async failure(emailKey) {
      return Number(await run(FAILURE_LUA, [prefix + emailKey], [String(memoryMs)]));
    },
    async success(emailKey) {
      await redis.del(prefix + emailKey);
    },
    async waitFor(emailKey) {
      return backoffWaitMs(Number((await redis.get(prefix + emailKey)) ?? 0));
    },
    async ping() {
      try {
        await redis.ping();
      } catch (error) {
        // Open ('ready', or 'connect' with its ready check unanswered) yet silent: start afresh. Otherwise
        // ioredis is already reconnecting by itself.
        if (redis.status === 'ready' || redis.status === 'connect') redis.disconnect(true);
        throw error;
      }
    },
    ready(timeoutMs = 2000) {
      if (redis.status === 'ready') return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          redis.off('ready', onReady);
          reject(new Error(`redis not ready within ${timeoutMs} ms`));
        }, timeoutMs);
        const onReady = (): void => {
          clearTimeout(timer);
          resolve();
        };
        redis.once('ready', onReady);
      });
    },
    close() {
      redis.disconnect();
      return Promise.resolve();
    },
  };
}

/** EVALSHA, loading the script once when Redis does not know it (first use, or after a restart). */
function script(redis: Redis) {
  const shas = new Map<string, string>();
  return async (lua: string, keys: readonly string[], args: readonly string[]): Promise<unknown> => {
    let sha = shas.get(lua);
    if (sha === undefined) {
      sha = createHash('sha1').update(lua).digest('hex');
      shas.set(lua, sha);
    }
    try {
      return await redis.evalsha(sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return redis.eval(lua, keys.length, ...keys, ...args);
    }
  };
}
