/**
 * The hash limit: how many password checks per second this machine could do if it did nothing but
 * verify hashes with the server's parameters, = cores ÷ CPU seconds of one verify. Logins and password
 * checks are reported as a share of it.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parsePassHash } from '../../src/config/settings.js';
import { PKG_DIR } from '../../src/package-dir.js';
import { createHasher } from '../../src/passwords/hashing.js';

export interface HashLimit {
  readonly passhash: string;
  /** CPU time of one verify (user + system of this process, which includes libuv's pool threads). */
  readonly verifyCpuMs: number;
  readonly cores: number;
  readonly perSecond: number;
}

/** The server's `passhash`: `override` (its AUTHSVC_PASSHASH) or the item's default. */
export function serverPassHash(override: string | undefined): string {
  if (override !== undefined) return override;
  const confvars = JSON.parse(readFileSync(join(PKG_DIR, 'src', 'config', 'confvars.json'), 'utf8')) as Record<
    string,
    { default?: unknown }
  >;
  return String(confvars['passhash']?.default);
}

/** Verifies one password `rounds` times, one after the other, and divides the CPU time they took. */
export async function measureHashLimit(passhash: string, rounds = 12): Promise<HashLimit> {
  const parsed = parsePassHash(passhash);
  if (!parsed.ok) throw new Error(`passhash: ${parsed.problem}`);
  const hasher = createHasher(parsed.value);
  const stored = await hasher.hash('bench-password-1234');
  await hasher.verify(stored, 'bench-password-1234'); // warm-up: the pool thread and the native module
  const before = process.cpuUsage();
  for (let i = 0; i < rounds; i++) await hasher.verify(stored, 'bench-password-1234');
  const used = process.cpuUsage(before);
  const verifyCpuMs = (used.user + used.system) / 1000 / rounds;
  const cores = availableParallelism();
  return { passhash, verifyCpuMs, cores, perSecond: (cores * 1000) / verifyCpuMs };
}
