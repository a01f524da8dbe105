import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { memoryReplayCache, replayKey, ReplaySet } from '../../src/services/admission/memory-store.js';

/**
 * The definition the set must behave as, written another way: one flat set of (key, 10-second bucket of
 * expiry) records; a check first forgets the records whose bucket has ended.
 */
class ReplayModel {
  private readonly records = new Set<string>();
  get size(): number {
    return this.records.size;
  }
  has(key: string, nowMs: number): boolean {
    for (const r of this.records) if ((Number(r.split('|')[1]) + 1) * 10_000 <= nowMs) this.records.delete(r);
    return [...this.records].some((r) => r.startsWith(`${key}|`));
  }
  add(key: string, expiresAtMs: number): void {
    this.records.add(`${key}|${Math.floor(expiresAtMs / 10_000)}`);
  }
}

describe('replay cache', () => {
  it('admits a token once while it is valid', () => {
    const cache = memoryReplayCache();
    const mac = randomBytes(32);
    assert.equal(cache.admit(mac, 120_000, 0), true);
    assert.equal(cache.admit(mac, 120_000, 1_000), false);
    assert.equal(cache.admit(Buffer.from(mac), 120_000, 119_000), false);
  });
  it('forgets tokens once they have expired, keeping memory to live tokens', () => {
    const cache = memoryReplayCache();
    for (let i = 0; i < 1000; i++) cache.admit(randomBytes(32), 60_000 + i * 100, 0);
    assert.equal(cache.size, 1000);
    cache.admit(randomBytes(32), 500_000, 200_000);
    assert.equal(cache.size, 1);
  });
  it('tells apart keys that differ in any one of their 128 bits, however many it holds', () => {
    const set = new ReplaySet();
    const base = randomBytes(16);
    set.add(replayKey(base), 120_000);
    for (let bit = 0; bit < 128; bit++) {
      const other = Buffer.from(base);
      other[bit >> 3] = (other[bit >> 3] ?? 0) ^ (1 << (bit & 7));
      assert.equal(set.has(replayKey(other), 0), false, `bit ${bit}`);
    }
    // Many keys in one bucket: every key still found, none counted twice.
    const keys = Array.from({ length: 20_000 }, () => replayKey(randomBytes(16)));
    for (const key of keys) set.add(key, 120_000);
    for (const key of keys) set.add(key, 120_000);
    assert.equal(set.size, 20_001);
    assert.ok(keys.every((key) => set.has(key, 0)));
    assert.equal(set.has(replayKey(base), 0), true);
  });
  it('refuses a key that is not replayKey output rather than storing part of it', () => {
    const set = new ReplaySet();
    assert.throws(() => set.add('token', 1), TypeError);
    assert.throws(() => set.has(randomBytes(18).toString('base64'), 0), TypeError);
  });
  it('answers as the definition does, for any sequence of checks and records', () => {
    const key = fc.integer({ min: 0, max: 7 }).map((n) => replayKey(Buffer.alloc(16, n)));
    // Whole seconds, so that checks fall on the buckets' edges as often as between them.
    const ms = (maxSeconds: number) => fc.integer({ min: 0, max: maxSeconds }).map((s) => s * 1000);
    const op = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), key, expiresAtMs: ms(200) }),
      fc.record({ kind: fc.constant('has' as const), key, advanceMs: ms(30) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const set = new ReplaySet();
        const model = new ReplayModel();
        let now = 0;
        for (const o of ops) {
          if (o.kind === 'add') {
            set.add(o.key, o.expiresAtMs);
            model.add(o.key, o.expiresAtMs);
          } else {
            now += o.advanceMs;
            assert.equal(set.has(o.key, now), model.has(o.key, now));
          }
          assert.equal(set.size, model.size);
        }
      }),
      { numRuns: 500 },
    );
  });
});
