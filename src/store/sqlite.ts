/**
 * SQLite through one better-sqlite3 connection shared by knex and by our cached prepared statements
 * (knex's better-sqlite3 client re-prepares every statement, docs/design.md#sqlite-knex-re-prepares-every-statement).
 * better-sqlite3 is synchronous, so one connection per process serves every request in turn. A hot statement runs at
 * once, without knex's pool, unless a knex transaction is open on the shared connection: it then waits its turn in
 * the pool like any knex query, since run inside that transaction it would read its uncommitted rows
 * and a write of ours would be rolled back with it. With several worker processes each has
 * its own connection: WAL lets readers run beside the one writer, and every write is a single
 * statement (no read-then-write transaction across processes, docs/design.md#sqlite-one-connection-several-processes),
 * so the busy wait stays short.
 */
import { closeSync, chmodSync, mkdirSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import knexFactory from 'knex';
import type { Knex } from 'knex';
import type BetterSqliteDialect from 'knex/lib/dialects/better-sqlite3/index.js';
import type SqliteTransactionClass from 'knex/lib/dialects/sqlite3/execution/sqlite-transaction.js';
import { ACQUIRE_TIMEOUT_MS, KNEX_LOG, nativeSql, withConnection } from './db.js';
import type { Db, HotStatement } from './db.js';
import type { Row } from './records.js';
import type { SqliteTarget } from './url.js';

/**
 * How long a writer waits for another process's write to finish. better-sqlite3 waits synchronously
 * (the worker's event loop stalls meanwhile), so keep it short: writes are single statements.
 */
const BUSY_TIMEOUT_MS = 2000;

/**
 * Transactions take the write lock at BEGIN (BEGIN IMMEDIATE), where the busy timeout applies. knex
 * begins them DEFERRED: the lock is then taken at the first write, and when another worker process
 * committed in between, SQLite refuses at once (SQLITE_BUSY / SQLITE_BUSY_SNAPSHOT, no busy wait),
 * which answered 503 "database unavailable" to one of two simultaneous refreshes on SQLite with
 * --workers 2. Every transaction of the store writes, so none loses by this.
 */
function immediateTransaction(SqliteTransaction: typeof SqliteTransactionClass) {
  return class ImmediateTransaction extends SqliteTransaction {
    override begin(connection: unknown): Promise<unknown> {
      return this.query(connection, 'BEGIN IMMEDIATE;');
    }
  };
}

/** Runs `use` at once, unless a knex transaction holds the shared connection: then once it has ended. */
type WhenFree = <T>(use: () => T) => Promise<T>;

/**
 * Group commit. Every SQLite commit appends each page it changed to the WAL (a session insert: the
 * table's page and one per index, ~10 writes to the file) and updates the WAL index: measured at ~28 µs
 * of CPU, most of it in the kernel, per single-statement commit. Under load, several requests of one
 * event-loop turn write at once; their statements run in one transaction instead, at the end of the
 * turn, and each resolves once that transaction is committed (so no reply is sent before its write is
 * durable, as before). A statement that fails undoes only itself (SQLite's statement rollback), and
 * answers its own error; a failed commit answers every statement of the group with its error.
 */
function groupCommit(db: Database.Database, whenFree: WhenFree) {
  interface Pending {
    readonly statement: () => Database.Statement;
    readonly bindings: readonly unknown[];
    readonly resolve: (changes: number) => void;
    readonly reject: (error: unknown) => void;
  }
  let pending: Pending[] = [];
  const runAll = (group: readonly Pending[]): void => {
    if (group.length === 1) {
      const [only] = group as [Pending];
      try {
        only.resolve(only.statement().run(...only.bindings).changes);
      } catch (error) {
        only.reject(error);
      }
      return;
    }
    // Each statement's answer waits for the commit: no promise settles before its write is durable.
    const answers: Array<() => void> = [];
    try {
      // IMMEDIATE: take the write lock at BEGIN, where the busy timeout applies (see immediateTransaction).
      db.transaction(() => {
        for (const item of group) {
          try {
            const { changes } = item.statement().run(...item.bindings);
            answers.push(() => item.resolve(changes));
          } catch (error) {
            // Some failures (I/O, a full disk) make SQLite roll the whole transaction back: then every
            // statement of the group has failed, and none may run on outside it.
            if (!db.inTransaction) throw error;
            answers.push(() => item.reject(error));
          }
        }
      }).immediate();
    } catch (error) {
      for (const item of group) item.reject(error);
      return;
    }
    for (const answer of answers) answer();
  };
  const flush = (): void => {
    const group = pending;
    pending = [];
    // runAll answers every statement itself; only waiting for the connection can fail here.
    whenFree(() => runAll(group)).catch((error: unknown) => {
      for (const item of group) item.reject(error);
    });
  };
  return {
    write(statement: () => Database.Statement, bindings: readonly unknown[]): Promise<number> {
      return new Promise<number>((resolve, reject) => {
        if (pending.length === 0) setImmediate(flush);
        pending.push({ statement, bindings, resolve, reject });
      });
    },
  };
}

export function openSqlite(target: SqliteTarget): Db {
  const { filename } = target;
  mkdirSync(dirname(filename), { recursive: true });
  // Create the file with mode 0600 before SQLite opens it, and tighten an existing one: the database
  // holds password hashes.
  closeSync(openSync(filename, 'a', 0o600));
  chmodSync(filename, 0o600);

  // Required here, not imported: a server on PostgreSQL or MariaDB never loads the native module.
  const require = createRequire(import.meta.url);
  const Driver = require('better-sqlite3') as typeof Database;
  const BetterSqliteClient = require('knex/lib/dialects/better-sqlite3/index.js') as typeof BetterSqliteDialect;
  const ImmediateTransaction = immediateTransaction(
    require('knex/lib/dialects/sqlite3/execution/sqlite-transaction.js') as typeof SqliteTransactionClass,
  );
  const db = new Driver(filename);
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`); // first: switching to WAL may itself wait
  db.pragma('journal_mode = WAL');
  db.pragma('journal_size_limit = 5242880');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');

  class SharedConnection extends BetterSqliteClient {
    override acquireRawConnection(): Promise<Database.Database> {
      return Promise.resolve(db);
    }
    override destroyRawConnection(): Promise<void> {
      return Promise.resolve(); // closed below, once knex is done
    }
    override transaction(...rest: unknown[]): Knex.Transaction {
      return new ImmediateTransaction(this, ...rest) as unknown as Knex.Transaction;
    }
  }

  const knex: Knex = knexFactory({
    client: SharedConnection,
    connection: { filename },
    useNullAsDefault: true,
    pool: { min: 1, max: 1 },
    acquireConnectionTimeout: ACQUIRE_TIMEOUT_MS,
    log: KNEX_LOG,
  });

  /** Runs `use` now, or after the open knex transaction ends (see above); a throw becomes a rejection. */
  const whenFree: WhenFree = (use) =>
    db.inTransaction
      ? withConnection(knex, () => Promise.resolve().then(use))
      : new Promise((resolve) => resolve(use()));
  const commits = groupCommit(db, whenFree);

  return {
    dialect: 'sqlite',
    knex,
    hot(_name, build): HotStatement {
      let prepared: Database.Statement | undefined;
      const statement = (): Database.Statement => (prepared ??= db.prepare(nativeSql(build)));
      return {
        first: (bindings) => whenFree(() => statement().get(...bindings) as Row | undefined),
        all: (bindings) => whenFree(() => statement().all(...bindings) as Row[]),
        run: (bindings) => whenFree(() => statement().run(...bindings).changes),
        write: (bindings) => commits.write(statement, bindings),
      };
    },
    async close() {
      await knex.destroy();
      db.close();
    },
  };
}
