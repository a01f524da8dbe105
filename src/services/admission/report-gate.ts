/**
 * "One log line and an audit event per (key, minute) at most" for rate-limit refusals: a flood of 429s
 * from one client must not become a flood of log lines. Bounded like every map keyed by client input.
 */
import { BoundedMap } from './memory-store.js';

export class ReportGate {
  private readonly last: BoundedMap<number>;

  constructor(
    private readonly windowMs = 60_000,
    maxKeys = 10_000,
  ) {
    this.last = new BoundedMap(maxKeys);
  }

  /** True for the first refusal of a key in each window: log and audit that one. */
  shouldReport(key: string, nowMs: number): boolean {
    const previous = this.last.get(key);
    if (previous !== undefined && nowMs - previous < this.windowMs) return false;
    this.last.set(key, nowMs);
    return true;
  }
}
