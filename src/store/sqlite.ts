/**
 * SQLite through one better-sqlite3 connection shared by knex and by our cached prepared statements
 * (knex's better-sqlite3 client re-prepares every statement, trap S7). better-sqlite3 is synchronous,
 * so one connection per process serves every request in turn. With several worker processes each has
 * its own connection: WAL lets readers run beside the one writer, and every write is a single
 * statement (no read-then-write transaction across processes, trap S6), so the busy wait stays short.
 */
import { closeSync, chmodSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import knexFactory from 'knex';
import type { Knex } from 'knex';
import BetterSqliteClient from 'knex/lib/dialects/better-sqlite3/index.js';
import { ACQUIRE_TIMEOUT_MS, KNEX_LOG, nativeSql } from './db.js';
import type { Db, HotRead } from './db.js';
import type { Row } from './records.js';
import type { SqliteTarget } from './url.js';

/**
 * How long a writer waits for another process's write to finish. better-sqlite3 waits synchronously
 * (the worker's event loop stalls meanwhile), so keep it short: writes are single statements.
 */
const BUSY_TIMEOUT_MS = 2000;

export function openSqlite(target: SqliteTarget): Db {
  const { filename } = target;
  mkdirSync(dirname(filename), { recursive: true });
  // Create the file with mode 0600 before SQLite opens it, and tighten an existing one: the database
  // holds password hashes.
  closeSync(openSync(filename, 'a', 0o600));
  chmodSync(filename, 0o600);

  const db = new Database(filename);
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
    hotRead(_name, build): HotRead {
      let statement: Database.Statement | undefined;
      return {
        first(bindings) {
          statement ??= db.prepare(nativeSql(build));
          return Promise.resolve(statement.get(...bindings) as Row | undefined);
        },
      };
    },
    async close() {
      await knex.destroy();
      db.close();
    },
  };
}
