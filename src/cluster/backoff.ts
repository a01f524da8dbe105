/**
 * Crash-loop protection for dead workers: a worker that had run for a while is replaced at once; one
 * that keeps dying soon after start waits twice as long each time, up to a ceiling, so a broken
 * deployment does not burn the CPU that the surviving workers need.
 */

/** A worker that lived this long was not crash-looping: its slot starts over. */
export const STABLE_AFTER_MS = 30_000;
export const FIRST_DELAY_MS = 250;
export const MAX_DELAY_MS = 30_000;

export interface RestartPlan {
  /** Deaths in a row of this slot, each soon after its start (1 after a stable run). */
  readonly crashes: number;
  readonly delayMs: number;
}

/** When to restart a slot whose worker lived `livedMs`, after `previousCrashes` quick deaths. */
export function planRestart(previousCrashes: number, livedMs: number): RestartPlan {
  const crashes = livedMs >= STABLE_AFTER_MS ? 1 : previousCrashes + 1;
  return { crashes, delayMs: Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.min(crashes - 1, 20)) };
}
