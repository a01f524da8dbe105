/**
 * Waiting for what another process or a timer does: poll a condition until it holds, or fail naming it.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';

/** Resolves once `condition()` holds; fails naming `what` after `limitMs`. */
export async function until(what: string, condition: () => boolean, limitMs = 20_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
