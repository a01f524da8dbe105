import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { FIRST_DELAY_MS, MAX_DELAY_MS, STABLE_AFTER_MS, planRestart } from '../../src/cluster/backoff.js';

describe('restart back-off of dead workers', () => {
  it('replaces a worker that had run for a while after the first delay', () => {
    assert.deepEqual(planRestart(7, STABLE_AFTER_MS), { crashes: 1, delayMs: FIRST_DELAY_MS });
  });

  it('doubles the delay for each quick death in a row, up to the ceiling', () => {
    let crashes = 0;
    const delays: number[] = [];
    for (let i = 0; i < 12; i++) {
      const plan = planRestart(crashes, 100);
      crashes = plan.crashes;
      delays.push(plan.delayMs);
    }
    assert.deepEqual(delays.slice(0, 5), [250, 500, 1000, 2000, 4000]);
    assert.equal(delays.at(-1), MAX_DELAY_MS);
  });

  it('never waits less than the first delay nor more than the ceiling', () => {
    fc.assert(
      fc.property(fc.nat(1_000_000), fc.nat(10 * STABLE_AFTER_MS), (previous, lived) => {
        const { crashes, delayMs } = planRestart(previous, lived);
        return crashes >= 1 && delayMs >= FIRST_DELAY_MS && delayMs <= MAX_DELAY_MS;
      }),
    );
  });
});
