/**
 * Compare-and-swap retries of the merging edits (internal-session-edit, internal-user-edit). Every
 * round has one winner; with several processes or a connection pool many edits can be in flight at
 * once, so losers wait a short, random, growing time before trying again (else they keep colliding).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Random } from '../domain/ports.js';

/** Attempts before giving up with `edit_conflict`. */
export const CAS_ATTEMPTS = 40;
const MAX_BACKOFF_MS = 40;

export function casBackoff(attempt: number, random: Random): Promise<void> {
  const ceiling = Math.min(MAX_BACKOFF_MS, 2 ** attempt);
  return sleep(((random.bytes(1)[0] ?? 0) / 255) * ceiling);
}
