import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { memoryReplayCache } from '../../src/admission/replay.js';

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
});
