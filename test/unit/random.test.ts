import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { randomSource } from '../../src/domain/ports.js';

describe('randomness', () => {
  it('never hands out the same bytes twice', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      const bytes = randomSource.bytes(16);
      assert.equal(bytes.length, 16);
      const hex = bytes.toString('hex');
      assert.ok(!seen.has(hex), `repeated after ${i} calls`);
      seen.add(hex);
    }
  });

  it('gives each caller its own copy: changing one result changes no other', () => {
    const first = randomSource.bytes(32);
    const second = randomSource.bytes(32);
    const secondKept = Buffer.from(second);
    first.fill(0xff);
    assert.deepEqual(second, secondKept);
    assert.ok(!randomSource.bytes(32).equals(Buffer.alloc(32, 0xff)));
  });

  it('serves every length', () => {
    for (const length of [0, 1, 15, 16, 17, 64, 65, 4096, 10_000]) {
      assert.equal(randomSource.bytes(length).length, length);
    }
    assert.notDeepEqual(randomSource.bytes(10_000), Buffer.alloc(10_000));
  });
});
