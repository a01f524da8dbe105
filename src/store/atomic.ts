/**
 * Atomic counter updates, for the counters later issues need (failed logins, lock-out, refresh
 * rotation): one statement changes the row and says what it wrote, so concurrent requests, in one
 * process or in several, never lose an increment (trap S2). Never read a value, await something
 * (an argon2 verify) and write it back.
 * - PostgreSQL and SQLite: `UPDATE … RETURNING`.
 * - MariaDB/MySQL have no RETURNING on UPDATE: `SET counter = LAST_INSERT_ID(<next>)`, then
 *   `SELECT LAST_INSERT_ID()` on the same connection (it is per connection, so no other request's
 *   value can show through).
 */
import type { Knex } from 'knex';
import type { Db } from './db.js';
import { intFromDb } from './dialect.js';

export interface CounterUpdate {
  readonly table: string;
  /** Picks exactly one row (by its key). */
  readonly where: Readonly<Record<string, string | number>>;
  /** The counter's column. */
  readonly column: string;
  /** Its next value, as SQL over the row's old values, e.g. `knex.raw('?? + 1', [column])`. */
  readonly next: Knex.Raw;
  /**
   * Other columns to write: bound values, or SQL that reads only the OLD values of the counter and of
   * its own column. (MySQL evaluates SET left to right; the counter is assigned last, so these read its
   * old value there too. MariaDB connections run with SIMULTANEOUS_ASSIGNMENT, like PostgreSQL.)
   */
  readonly set?: Readonly<Record<string, unknown>>;
}

/** Applies the update atomically; the counter's new value, or null when no row matched. */
export async function atomicUpdate(db: Db, update: CounterUpdate): Promise<number | null> {
  const { knex } = db;
  if (db.dialect !== 'mysql') {
    const rows: Array<Record<string, unknown>> = await knex(update.table)
      .where(update.where)
      .update({ ...update.set, [update.column]: update.next }, [update.column]);
    const first = rows[0];
    return first === undefined ? null : intFromDb(first[update.column]);
  }
  return knex.transaction(async (trx) => {
    const changed = await trx(update.table)
      .where(update.where)
      .update({ ...update.set, [update.column]: knex.raw('LAST_INSERT_ID(?)', [update.next]) });
    // mysql2 reports rows matched (FOUND_ROWS), so an update that kept the value still counts.
    if (changed === 0) return null;
    const [rows] = (await trx.raw('SELECT LAST_INSERT_ID() AS v')) as [Array<{ v: unknown }>];
    return intFromDb(rows[0]?.v);
  });
}
