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
import { createHasher } from '../../src/accounts/password-hashing.js';

export interface HashLimit {
  readonly passhash: string;
  /** CPU time of one verify (user + system of this process, which includes libuv's pool threads). */
  readonly verifyCpuMs: number;
  readonly cores: number;
  readonly perSecond: number;
  /**
   * What the hashes alone reach with every core verifying at once (`cores` verifies in flight, wall
   * clock), and the CPU each then takes: more than one alone, since every argon2id verify streams its
   * whole memory cost (19 MiB by default) through caches and memory the cores share. The ceiling a
   * server's password checks can approach; `perSecond` assumes cores scale perfectly.
   */
  readonly parallelPerSecond: number;
  readonly parallelVerifyCpuMs: number;
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

/**
 * Verifies one password `rounds` times, one after the other, and divides the CPU time they took; then
 * `rounds` times per core with every core verifying at once.
 */
export async function measureHashLimit(passhash: string, rounds = 40): Promise<HashLimit> {
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
  const total = rounds * cores;
  let started = 0;
  const wall0 = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: cores }, async () => {
      while (started++ < total) await hasher.verify(stored, 'bench-password-1234');
    }),
  );
  const wallMs = performance.now() - wall0;
  const parallelCpu = process.cpuUsage(cpu0);
  return {
    passhash,
    verifyCpuMs,
    cores,
    perSecond: (cores * 1000) / verifyCpuMs,
    parallelPerSecond: (total * 1000) / wallMs,
    parallelVerifyCpuMs: (parallelCpu.user + parallelCpu.system) / 1000 / total,
  };
}
