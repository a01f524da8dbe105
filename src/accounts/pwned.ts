/**
 * The compromised-password check: the k-anonymity range API (haveibeenpwned's, or one of the same
 * shape at `pwnedurl`). Only the first 5 hex characters of the SHA-1 leave the machine, and
 * `Add-Padding` hides the size of the answer. The timeout is short (dev and CI machines have no
 * internet, and every sign-up would wait it out), and after repeated failures a breaker skips the
 * call for a while.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../domain/ports.js';

export interface PwnedChecker {
  /** How often the password was seen in breaches; null when that cannot be known now. */
  count(password: string): Promise<number | null>;
}

export interface PwnedOptions {
  /** The range endpoint; the 5-character prefix is appended to it. */
  readonly url: string;
  readonly clock: Clock;
  readonly timeoutMs?: number;
  /** Consecutive failures that open the breaker. */
  readonly failuresToOpen?: number;
  /** How long the breaker stays open. */
  readonly openForMs?: number;
}

export function createPwnedChecker(options: PwnedOptions): PwnedChecker {
  const timeoutMs = Math.min(options.timeoutMs ?? 1500, 1500);
  const failuresToOpen = options.failuresToOpen ?? 3;
  const openForMs = options.openForMs ?? 5 * 60_000;
  let failures = 0;
  let openUntil = 0;

  return {
    async count(password) {
      if (options.clock.now() < openUntil) return null;
      const digest = createHash('sha1').update(password, 'utf8').digest('hex').toUpperCase();
      const prefix = digest.slice(0, 5);
      const suffix = digest.slice(5);
      try {
        const response = await fetch(`${options.url}${prefix}`, {
          headers: { 'Add-Padding': 'true', 'User-Agent': 'authsvc' },
          signal: AbortSignal.timeout(timeoutMs),
        });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const text = await response.text();
        failures = 0;
        for (const line of text.split('\n')) {
          const [lineSuffix, count] = line.trim().split(':');
          if (lineSuffix?.toUpperCase() === suffix) return Number.parseInt(count ?? '0', 10) || 0;
        }
        return 0;
      } catch {
        failures++;
        if (failures >= failuresToOpen) {
          openUntil = options.clock.now() + openForMs;
          failures = 0;
        }
        return null;
      }
    },
  };
}

/** For `pwnedurl` none: nothing is ever known to be compromised. */
export const noPwnedCheck: PwnedChecker = { count: () => Promise.resolve(0) };
