import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

const TABLES: ReadonlyArray<readonly [string, string]> = [
  ['users', 'user_id'],
  ['sessions', 'token_hash'],
  ['apikeys', 'tkn_hash'],
  ['apikeys_nosession', 'tkn_hash'],
  ['refresh_tokens', 'token_hash'],
];

/**
 * A digest of every row of every table: equal digests mean a request changed nothing (but in the
 * `ignored` columns, left out of every row).
 */
export async function databaseDigest(knex: Knex, ignored: readonly string[] = []): Promise<string> {
  const hash = createHash('sha256');
  for (const [table, key] of TABLES) {
    const selected = (await knex(table).select('*').orderBy(key)) as Array<Record<string, unknown>>;
    const rows = selected.map((row) => Object.fromEntries(Object.entries(row).filter(([c]) => !ignored.includes(c))));
    hash.update(`${table}:${JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}\n`);
  }
  return hash.digest('hex');
}
