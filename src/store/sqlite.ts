/**
 * SQLite through one better-sqlite3 connection shared by knex and by our cached prepared statements
 * (knex's better-sqlite3 client re-prepares every statement, trap S7). better-sqlite3 is synchronous,
 * so one connection per process serves every request in turn.
 */
import { closeSync, chmodSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import knexFactory from 'knex';
import type { Knex } from 'knex';
import BetterSqliteClient from 'knex/lib/dialects/better-sqlite3/index.js';

export interface SqliteHandle {
  readonly db: Database.Database;
  readonly knex: Knex;
}

export function openSqlite(filename: string): SqliteHandle {
  mkdirSync(dirname(filename), { recursive: true });
  // Create the file with mode 0600 before SQLite opens it, and tighten an existing one: the database
  // holds password hashes.
  closeSync(openSync(filename, 'a', 0o600));
  chmodSync(filename, 0o600);

  const db = new Database(filename);
  db.pragma('journal_mode = WAL');
  db.pragma('journal_size_limit = 5242880');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');

  class SharedConnection extends BetterSqliteClient {
    override acquireRawConnection(): Promise<Database.Database> {
      return Promise.resolve(db);
    }
    override destroyRawConnection(): Promise<void> {
      return Promise.resolve(); // the store closes the connection itself
    }
  }

  const knex = knexFactory({
    client: SharedConnection,
    connection: { filename },
    useNullAsDefault: true,
    pool: { min: 1, max: 1 },
    acquireConnectionTimeout: 2000,
  });
  return { db, knex };
}
