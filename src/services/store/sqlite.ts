/**
 * SQLite through the one better-sqlite3 connection knex's pool opens (knex's own `better-sqlite3`
 * client), shared by knex and by our cached prepared statements (knex's client re-prepares every
 * statement, docs/design.md#sqlite-knex-re-prepares-every-statement): `pool.afterCreate` sets it up and keeps it, and
 * the hot statements are prepared on it with better-sqlite3's own `prepare`. better-sqlite3 is synchronous, so one
 * connection per process serves every request in turn. A hot statement runs at once, without knex's pool, unless
 * a transaction is open on the shared connection: it then waits its turn in the pool like any knex
 * query, since run inside that transaction it would read its uncommitted rows and a write of ours
 * would be rolled back with it. With several worker processes each has its own connection: WAL lets
 * readers run beside the one writer, and every write is a single statement or a transaction that takes
 * the write lock at BEGIN (docs/design.md#sqlite-one-connection-several-processes), so the busy wait stays short.
 */
import { closeSync, chmodSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import knexFactory from 'knex';
import type { Knex } from 'knex';
import { ACQUIRE_TIMEOUT_MS, announce, KNEX_LOG, nativeSql, runTransaction, withConnection } from './db.js';
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
const BEGIN = 'BEGIN IMMEDIATE';

/**
 * Sets up the connection knex's pool opened: knex sets no pragmas
 * (docs/design.md#sqlite-one-connection-several-processes).
 */
function setUp(connection: Database.Database): void {
  connection.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`); // first: switching to WAL may itself wait
  connection.pragma('journal_mode = WAL');
  connection.pragma('journal_size_limit = 5242880');
  connection.pragma('synchronous = NORMAL');
  connection.pragma('foreign_keys = ON');
}

/**
 * Runs `use` on the shared connection: at once, unless a transaction holds it (then once it has
 * ended), or it is not open yet (then once the pool has opened it).
 */
type OnConnection = <T>(use: (connection: Database.Database) => T) => Promise<T>;

/**
 * The SQL of a hot statement with each placeholder under a unary plus (`?` → `+?`), which keeps its value and its
 * (absent) affinity. Without it every run of a hot join was parsed and planned again (a session lookup cost 35 µs
 * instead of 5): SQLite's planner reads the value bound to `column = ?` in a join and marks the statement to be
 * re-prepared when that value changes, and better-sqlite3 clears the bindings after each run, which counts as a change
 * (docs/design.md#sqlite-hot-joins-were-planned-on-every-run). The planner does not look through the plus. Quoted
 * text and names are left as they are.
 */
export function unpeekable(sql: string): string {
  return sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|`(?:[^`]|``)*`|\?/g, (token) => (token === '?' ? '+?' : token));
}

/** A hot statement, prepared once per connection. */
type Prepared = (connection: Database.Database) => Database.Statement;

/**
 * Group commit. Every SQLite commit appends each page it changed to the WAL (a session insert: the
 * table's page and one per index, ~10 writes to the file) and updates the WAL index: measured at ~28 µs
 * of CPU, most of it in the kernel, per single-statement commit. Under load, several requests of one
 * event-loop turn write at once; their statements run in one transaction instead, at the end of the
 * turn, and each resolves once that transaction is committed (so no reply is sent before its write is
 * durable, as before). A statement that fails undoes only itself (SQLite's statement rollback), and
 * answers its own error; a failed commit answers every statement of the group with its error.
 */
function groupCommit(onConnection: OnConnection) {
  interface Pending {
    readonly statement: Prepared;
    readonly bindings: readonly unknown[];
    readonly resolve: (changes: number) => void;
    readonly reject: (error: unknown) => void;
  }
  let pending: Pending[] = [];
  const runAll = (db: Database.Database, group: readonly Pending[]): void => {
    if (group.length === 1) {
      const [only] = group as [Pending];
      try {
        only.resolve(only.statement(db).run(...only.bindings).changes);
      } catch (error) {
        only.reject(error);
      }
      return;
    }
    // Each statement's answer waits for the commit: no promise settles before its write is durable.
    const answers: Array<() => void> = [];
    try {
      // IMMEDIATE: take the write lock at BEGIN, where the busy timeout applies (see BEGIN).
      db.transaction(() => {
        for (const item of group) {
          try {
            const { changes } = item.statement(db).run(...item.bindings);
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
    onConnection((db) => runAll(db, group)).catch((error: unknown) => {
      for (const item of group) item.reject(error);
    });
  };
  return {
    write(statement: Prepared, bindings: readonly unknown[]): Promise<number> {
      return new Promise<number>((resolve, reject) => {
        if (pending.length === 0) setImmediate(flush);
        pending.push({ statement, bindings, resolve, reject });
      });
    },
  };
}

/**
 * Group commit's one switch: false makes every hot `write` a `run`, its own commit (issue 27 item 3
 * keeps group commit only if the benchmark shows it pays).
 */
const GROUP_COMMIT = true;

export function openSqlite(target: SqliteTarget, groupCommits: boolean = GROUP_COMMIT): Db {
  const { filename } = target;
  mkdirSync(dirname(filename), { recursive: true });
  // Create the file with mode 0600 before SQLite opens it, and tighten an existing one: the database
  // holds password hashes.
  closeSync(openSync(filename, 'a', 0o600));
  chmodSync(filename, 0o600);

  /** The connection knex's pool opened and set up (one per process; none before the first query). */
  let shared: Database.Database | undefined;
  const knex: Knex = knexFactory({
    // knex loads better-sqlite3 only here: a server on PostgreSQL or MariaDB never loads the native module.
    client: 'better-sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      afterCreate(connection: Database.Database, done: (error: Error | null, connection: Database.Database) => void) {
        try {
          setUp(connection);
          shared = connection;
          done(null, connection);
        } catch (error) {
          done(error instanceof Error ? error : new Error(String(error)), connection);
        }
      },
    },
    acquireConnectionTimeout: ACQUIRE_TIMEOUT_MS,
    log: KNEX_LOG,
  });

  const onConnection: OnConnection = (use) => {
    const free = shared;
    return free?.open === true && !free.inTransaction
      ? new Promise((resolve) => resolve(use(free))) // a throw becomes a rejection
      : withConnection(knex, (connection: Database.Database) => Promise.resolve().then(() => use(connection)));
  };
  const commits = groupCommit(onConnection);

  return {
    dialect: 'sqlite',
    knex,
    hot(_name, build): HotStatement {
      let sql: string | undefined;
      let prepared: { readonly on: Database.Database; readonly statement: Database.Statement } | undefined;
      const statement: Prepared = (connection) => {
        if (prepared?.on !== connection) {
          prepared = { on: connection, statement: connection.prepare((sql ??= unpeekable(nativeSql(build)))) };
        }
        return prepared.statement;
      };
      const seen = (bindings: readonly unknown[]): void => {
        // Checked here as well: without a listener no code of db.ts runs on a request (scripts/request-path.ts).
        if (knex.listenerCount('query') > 0) announce(knex, (sql ??= unpeekable(nativeSql(build))), bindings);
      };
      const run = (bindings: readonly unknown[]): Promise<number> => {
        seen(bindings);
        return onConnection((connection) => statement(connection).run(...bindings).changes);
      };
      return {
        first: (bindings) => {
          seen(bindings);
          return onConnection((connection) => statement(connection).get(...bindings) as Row | undefined);
        },
        all: (bindings) => {
          seen(bindings);
          return onConnection((connection) => statement(connection).all(...bindings) as Row[]);
        },
        run,
        write: groupCommits
          ? (bindings) => {
              seen(bindings);
              return commits.write(statement, bindings);
            }
          : run,
      };
    },
    transaction: (work) => runTransaction(knex, BEGIN, work),
    // knex closes the connection it opened.
    close: () => knex.destroy(),
  };
}
