/**
 * The test clock (configuration item `testclock`, honoured only with debugmode 1; docs/design.md#a-test-clock): the
 * time is the epoch milliseconds written in a file, read on every use, so a test can freeze and move
 * the time of every process of a server (the cluster primary and its workers, several instances).
 * A file that is missing or holds no number reads as the real time.
 */
import { readFileSync } from 'node:fs';
import type { Clock } from './ports.js';

export function fileClock(path: string): Clock {
  return {
    now() {
      try {
        const ms = Number(readFileSync(path, 'utf8').trim());
        return Number.isFinite(ms) && ms > 0 ? ms : Date.now();
      } catch {
        return Date.now();
      }
    },
  };
}
