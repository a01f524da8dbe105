import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { memoryAdmissionStore } from '../../src/services/admission/memory-store.js';
import { DEFAULT_RATE_POLICY } from '../../src/services/admission/rate-limits.js';
import { admissionContract } from './contract.js';
import { buckets } from './fixtures.js';

admissionContract('memory', () => Promise.resolve({ store: memoryAdmissionStore(), close: () => undefined }));

describe('the memory admission store', () => {
  it('stays within its bound under 100,000 distinct keys', () => {
    const store = memoryAdmissionStore({ maxBuckets: 20_000, maxBackoffKeys: 5_000 });
    const now = Date.UTC(2026, 0, 1);
    for (let i = 0; i < 100_000; i++) {
      const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      assert.equal(store.admitSync(buckets(DEFAULT_RATE_POLICY, 'session-new', ip), undefined, now).kind, 'ok');
      store.failureSync(`b:${i}`, now);
    }
    assert.equal(store.sizes.buckets, 20_000);
    assert.equal(store.sizes.backoff, 5_000);
  });

  it('holds 100,000 keys by default in bounded memory, forgetting refilled buckets as it meets them', () => {
    const store = memoryAdmissionStore();
    const now = Date.UTC(2026, 0, 1);
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 150_000; i++) {
      const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      const list = buckets(DEFAULT_RATE_POLICY, 'session-exists', ip, { session_token: `${i}` });
      assert.equal(store.admitSync(list, undefined, now).kind, 'ok');
    }
    assert.ok(store.sizes.buckets <= 100_000);
    const grownMb = (process.memoryUsage().heapUsed - before) / 2 ** 20;
    assert.ok(grownMb < 60, `grew ${grownMb.toFixed(1)} MB`);
    // A minute later every bucket has refilled, so each admission drops stale ones.
    for (let i = 0; i < 60_000; i++)
      store.admitSync([{ key: `k${i}`, perMinute: 60, burst: 1 }], undefined, now + 120_000);
    assert.ok(store.sizes.buckets <= 70_000, `${store.sizes.buckets}`);
  });
});
