/**
 * SQLite through one better-sqlite3 connection shared by knex and by our cached prepared statements
 * (knex's better-sqlite3 client re-prepares every statement, trap S7). better-sqlite3 is synchronous,
 * so one connection per process serves every request in turn. A hot statement runs at once, without
 * knex's pool, unless a knex transaction is open on the shared connection: it then waits its turn in
 * the pool like any knex query, since run inside that transaction it would read its uncommitted rows
 * and a write of ours would be rolled back with it. With several worker processes each has
 * its own connection: WAL lets readers run beside the one writer, and every write is a single
 * statement (no read-then-write transaction across processes, trap S6), so the busy wait stays short.
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

  return {
    dialect: 'sqlite',
    knex,
    hot(_name, build): HotStatement {
      let prepared: Database.Statement | undefined;
      const statement = (): Database.Statement => (prepared ??= db.prepare(nativeSql(build)));
      /** Runs `use` now, or after the open transaction ends (see above); a throw becomes a rejection. */
      const when = <T>(use: () => T): Promise<T> =>
        db.inTransaction
          ? withConnection(knex, () => Promise.resolve().then(use))
          : new Promise<T>((resolve) => resolve(use()));
      return {
        first: (bindings) => when(() => statement().get(...bindings) as Row | undefined),
        all: (bindings) => when(() => statement().all(...bindings) as Row[]),
        run: (bindings) => when(() => statement().run(...bindings).changes),
      };
    },
    async close() {
      await knex.destroy();
      db.close();
    },
  };
}
