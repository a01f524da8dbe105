import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SeedResult } from '../services/store/seed.js';

export const CREDENTIALS_FILE = '.authsvc-admin-credentials';

/**
 * Writes generated admin credentials into basedir, readable by the owner only (spec rule 2). Nothing
 * is written when the password was given (it is not ours to store). An existing file is never
 * overwritten: the new one gets the time as a suffix.
 */
export function writeCredentials(
  basedir: string,
  created: NonNullable<SeedResult['created']>,
  nowMs: number,
): string | null {
  if (!created.generated.password) return null;
  let path = join(basedir, CREDENTIALS_FILE);
  if (existsSync(path)) path = `${path}-${Math.floor(nowMs / 1000)}`;
  writeFileSync(path, `${created.email} ${created.password}\n`, { mode: 0o400, flag: 'wx' });
  return path;
}
