import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { backoffKey } from '../../src/services/admission/buckets.js';
import { redisAdmissionStore } from '../../src/services/admission/redis-store.js';
import { admissionContract } from './contract.js';
import { buckets, policy } from './fixtures.js';

const url = process.env['AUTHSVC_TEST_REDISURL'];

// A distinct prefix per store, so runs (and the engineers sharing this Redis) never collide. The contract is
// about decisions, not the 150 ms command deadline (redis-fault.test.ts): a loaded machine may take longer.
const SLACK = { commandTimeoutMs: 2_000 } as const;
admissionContract(
  'redis',
  async () => {
    const store = redisAdmissionStore(url ?? '', { ...SLACK, prefix: `authsvc-test:${randomUUID()}:` });
    await store.ready();
    return { store, close: () => store.close() };
  },
  url === undefined ? 'AUTHSVC_TEST_REDISURL is not set: the Redis store is not tested' : false,
);

describe('the redis admission store', { skip: url === undefined ? 'AUTHSVC_TEST_REDISURL is not set' : false }, () => {
  it('gives every key an expiry, so hostile keys cannot grow Redis without bound', async () => {
    const prefix = `authsvc-test:${randomUUID()}:`;
    const store = redisAdmissionStore(url ?? '', { ...SLACK, prefix });
    const redis = new Redis(url ?? '');
    try {
      await store.ready();
      const now = Date.now();
      // Minute-long intervals, so that no key expires (legitimately) before it is inspected.
      const slow = policy('ipaddr:1;user:1');
      for (let i = 0; i < 50; i++) {
        const list = buckets(slow, 'user-sendemail-forgotpass', `10.0.0.${i}`, { email: `${i}@x.org` });
        await store.admit(list, { key: `r${i}`, expiresAtMs: now + 120_000 }, now);
        await store.failure(backoffKey(`${i}@x.org`), now);
      }
      const keys = await redis.keys(`${prefix}*`);
      assert.equal(keys.length, 50 * (4 + 1 + 1), 'four buckets, a replay key and a back-off counter each');
      for (const key of keys) {
        const ttl = await redis.pttl(key);
        assert.ok(ttl > 0 && ttl <= 3_630_000, `${key}: ${ttl}`);
      }
    } finally {
      redis.disconnect();
      await store.close();
    }
  });
});
