import type { Clock } from '../../src/domain/ports.js';

/** A clock that moves only when the test says so. */
export class FrozenClock implements Clock {
  constructor(private ms: number = Date.now()) {}
  now(): number {
    return this.ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}
