/**
 * GCRA against a plain token-bucket model: each bucket holds up to `burst` tokens (kept as µs of
 * credit, T per token), refills continuously, and a request needs one token in every bucket at once.
 * The two formulations must agree on every decision and every wait; on Redis too, when it is set.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Bucket } from '../../src/services/admission/buckets.js';
import { cellOf } from '../../src/services/admission/buckets.js';
import { memoryAdmissionStore } from '../../src/services/admission/memory-store.js';
import { redisAdmissionStore } from '../../src/services/admission/redis-store.js';
import type { Admission, AdmissionStore } from '../../src/services/admission/store.js';

interface Step {
  readonly advanceMs: number;
  readonly mask: number;
}

const bucketsArb = fc.array(
  fc.record({ perMinute: fc.integer({ min: 1, max: 2000 }), burst: fc.integer({ min: 1, max: 20 }) }),
  { minLength: 1, maxLength: 3 },
);
const stepsArb = fc.array(
  fc.record({
    advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 5000 })),
    mask: fc.integer({ min: 1, max: 7 }),
  }),
  { minLength: 1, maxLength: 60 },
);

/** The model's answer, and its state updated in place when admitted. */
function modelAdmit(buckets: readonly Bucket[], credit: Map<string, number>): Admission {
  let wait = 0;
  let refused: Bucket | undefined;
  for (const b of buckets) {
    const { intervalUs } = cellOf(b);
    const level = credit.get(b.key) ?? b.burst * intervalUs;
    if (intervalUs - level > wait) [wait, refused] = [intervalUs - level, b];
  }
  if (refused !== undefined) return { kind: 'rate-limited', retryAfterMs: Math.ceil(wait / 1000), bucket: refused };
  for (const b of buckets) credit.set(b.key, (credit.get(b.key) ?? 0) - cellOf(b).intervalUs);
  return { kind: 'ok' };
}

async function agree(store: AdmissionStore, specs: { perMinute: number; burst: number }[], steps: Step[]) {
  const all: Bucket[] = specs.map((s, i) => ({ key: `k${i}`, ...s }));
  const credit = new Map<string, number>();
  let now = Date.UTC(2026, 0, 1);
  for (const step of steps) {
    now += step.advanceMs;
    // The model refills every bucket by the elapsed time, whether or not this request uses it.
    for (const b of all) {
      const full = b.burst * cellOf(b).intervalUs;
      credit.set(b.key, Math.min(full, (credit.get(b.key) ?? full) + step.advanceMs * 1000));
    }
    const used = all.filter((_, i) => (step.mask & (1 << i)) !== 0);
    const list = used.length > 0 ? used : all;
    assert.deepEqual(await store.admit(list, undefined, now), modelAdmit(list, credit));
  }
}

describe('GCRA', () => {
  it('agrees with a token-bucket model on every decision and wait (memory)', async () => {
    await fc.assert(
      fc.asyncProperty(bucketsArb, stepsArb, (specs, steps) => agree(memoryAdmissionStore(), specs, steps)),
      { numRuns: 300 },
    );
  });

  const url = process.env['AUTHSVC_TEST_REDISURL'];
  it(
    'agrees with the same model in the Redis Lua script',
    { skip: url === undefined ? 'AUTHSVC_TEST_REDISURL is not set' : false },
    async () => {
      await fc.assert(
        fc.asyncProperty(bucketsArb, stepsArb, async (specs, steps) => {
          // A fresh prefix per run: every run starts from fresh buckets, as the model does. The property is
          // about decisions, not the 150 ms command deadline: a loaded machine may take longer.
          const store = redisAdmissionStore(url ?? '', {
            prefix: `authsvc-test:${randomUUID()}:`,
            commandTimeoutMs: 2_000,
          });
          try {
            await store.ready();
            await agree(store, specs, steps);
          } finally {
            await store.close();
          }
        }),
        { numRuns: 25 },
      );
    },
  );
});
