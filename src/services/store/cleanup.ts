/**
 * The purge of expired rows (docs/design.md#sessions-and-the-purge): sessions, API keys (session-tied and
 * no-session), refresh tokens, login tickets, passkey challenges and the users' security history whose expiry has
 * passed by the injected clock. One instance at a time: an advisory lock on PostgreSQL (`pg_try_advisory_lock`, per
 * database) and MariaDB/MySQL (`GET_LOCK`, per server, so the name carries the database's); on SQLite only the primary
 * process runs it. The lock is held by one connection, so a crashed instance releases it with its connection. Deletes
 * go in batches, so no statement runs long and SQLite writers in the workers wait only briefly, and the purge pauses
 * after each. On SQLite it runs on a thread of its own (purge-thread.ts).
 */
import type { Knex } from 'knex';
import { PURGED_TABLES } from '../../domain/purge.js';
import type { PurgedTable } from '../../domain/purge.js';
import { withConnection } from './db.js';
import type { Db } from './db.js';
import { timeToDb } from './dialect.js';

/** Rows one statement deletes unless `purgebatch` says otherwise. */
export const PURGE_BATCH = 100;
/** Keys of the advisory lock on PostgreSQL: "auth" and 1. */
const PG_LOCK: readonly [number, number] = [0x61757468, 1];

export interface PurgeOptions {
  /** Rows one statement deletes (`purgebatch`). */
  readonly batch?: number;
  /** Told after each batch that deleted rows: the table, and how many of its rows this purge has deleted so far. */
  readonly progress?: (table: string, deleted: number) => void;
}

export interface PurgeReport {
  /** False when another instance held the lock. */
  readonly ran: boolean;
  readonly deleted: Readonly<Record<string, number>>;
}

interface Purge {
  readonly key: string;
  /** Rows that must stay although expired. */
  readonly keep?: (knex: Knex, now: number | Date) => Knex.QueryBuilder;
}

/** How each table is purged; PURGED_TABLES gives the order. */
const PURGES: Readonly<Record<PurgedTable, Purge>> = {
  refresh_tokens: { key: 'token_hash' },
  // A no-session key outlives its expiry while a refresh token that can renew it is still valid.
  apikeys_nosession: {
    key: 'tkn_hash',
    keep: (knex, now) =>
      knex('refresh_tokens as r')
        .select(knex.raw('1'))
        .whereRaw('?? = ??', ['r.apikey_hash', 'apikeys_nosession.tkn_hash'])
        .andWhere('r.expires', '>', now),
  },
  apikeys: { key: 'tkn_hash' },
  login_tickets: { key: 'ticket_hash' },
  passkey_challenges: { key: 'challenge_hash' },
  user_events: { key: 'event_id' },
  // Deleting a session also deletes its session-tied keys (foreign key, ON DELETE CASCADE).
  sessions: { key: 'token_hash' },
};

/** Starts a query on the connection that holds the lock. */
type On = (table: string) => Knex.QueryBuilder;

async function purgeTable(db: Db, on: On, table: PurgedTable, now: number, options: PurgeOptions): Promise<number> {
  const purge = PURGES[table];
  const at = timeToDb(db.dialect, now);
  const batch = options.batch ?? PURGE_BATCH;
  let total = 0;
  for (;;) {
    const began = performance.now();
    const expired = on(table).where('expires', '<=', at);
    if (purge.keep) expired.whereNotExists(purge.keep(db.knex, at));
    // MariaDB/MySQL refuse LIMIT inside IN (subquery) but take DELETE … LIMIT; the others the reverse.
    const deleted =
      db.dialect === 'mysql'
        ? await expired.limit(batch).del()
        : // Ordered by expiry, so that PostgreSQL walks the expires index instead of scanning the table for each batch.
          await on(table).whereIn(purge.key, expired.clone().select(purge.key).orderBy('expires').limit(batch)).del();
    total += deleted;
    if (deleted > 0) options.progress?.(table, total);
    if (deleted < batch) return total;
    // Pausing as long as the batch took leaves the database at least half of its time, and on SQLite lets the
    // server's writes take the write lock between two batches (docs/design.md#sessions-and-the-purge).
    await new Promise<void>((resolve) => setTimeout(resolve, performance.now() - began));
  }
}

async function purgeAll(db: Db, on: On, now: number, options: PurgeOptions): Promise<Record<string, number>> {
  const deleted: Record<string, number> = {};
  for (const table of PURGED_TABLES) deleted[table] = await purgeTable(db, on, table, now, options);
  return deleted;
}

/** Runs `work` while holding the cleanup advisory lock; null when another instance holds it. */
export async function withCleanupLock<T>(db: Db, work: (on: On) => Promise<T>): Promise<T | null> {
  const { knex } = db;
  if (db.dialect === 'sqlite') return work((table) => knex(table));
  // One connection holds the lock and does the work, so both end together.
  return withConnection(knex, async (raw: unknown) => {
    const run = (sql: string, bindings: readonly Knex.RawBinding[]) =>
      knex.raw(sql, bindings).connection(raw) as unknown as Promise<unknown>;
    const got =
      db.dialect === 'pg'
        ? ((await run('SELECT pg_try_advisory_lock(?, ?) AS got', PG_LOCK)) as { rows: Array<{ got: boolean }> })
            .rows[0]?.got === true
        : Number(
            (
              (await run("SELECT GET_LOCK(CONCAT('authsvc_cleanup:', DATABASE()), 0) AS got", [])) as [
                Array<{ got: unknown }>,
              ]
            )[0][0]?.got,
          ) === 1;
    if (!got) return null;
    try {
      return await work((table) => knex(table).connection(raw));
    } finally {
      await (db.dialect === 'pg'
        ? run('SELECT pg_advisory_unlock(?, ?)', PG_LOCK)
        : run("SELECT RELEASE_LOCK(CONCAT('authsvc_cleanup:', DATABASE()))", []));
    }
  });
}

/** Deletes what has expired at `now` (the injected clock's time). */
export async function purgeExpired(db: Db, now: number, options: PurgeOptions = {}): Promise<PurgeReport> {
  const deleted = await withCleanupLock(db, (on) => purgeAll(db, on, now, options));
  return deleted === null ? { ran: false, deleted: {} } : { ran: true, deleted };
}
