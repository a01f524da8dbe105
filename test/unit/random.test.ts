import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pooledRandom } from '../../src/domain/random.js';

describe('pooled randomness', () => {
  it('never hands out the same bytes twice, across many refills of the pool', () => {
    const random = pooledRandom();
    const seen = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      const bytes = random.bytes(16);
      assert.equal(bytes.length, 16);
      const hex = bytes.toString('hex');
      assert.ok(!seen.has(hex), `repeated after ${i} calls`);
      seen.add(hex);
    }
  });

  it('gives each caller its own copy: changing one result changes no other', () => {
    const random = pooledRandom();
    const first = random.bytes(32);
    const second = random.bytes(32);
    const secondKept = Buffer.from(second);
    first.fill(0xff);
    assert.deepEqual(second, secondKept);
    assert.ok(!random.bytes(32).equals(Buffer.alloc(32, 0xff)));
  });

  it('serves every length, from nothing to more than the pool holds', () => {
    const random = pooledRandom();
    for (const length of [0, 1, 15, 16, 17, 64, 65, 4096, 10_000]) {
      assert.equal(random.bytes(length).length, length);
    }
    assert.notDeepEqual(random.bytes(10_000), Buffer.alloc(10_000));
  });
});
