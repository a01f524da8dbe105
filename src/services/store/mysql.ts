/**
 * MariaDB and MySQL through `mysql2` and knex's pool. Every new connection is set up the same way
 * (docs/design.md#counters-that-say-what-they-wrote, docs/design.md#times-and-row-types-by-dialect,
 * docs/design.md#bounded-database-waits):
 * - times in UTC both ways: mysql2 `timezone: 'Z'` and the session's `time_zone = '+00:00'`;
 * - strict mode, so an over-long value is an error and never silently cut;
 * - MariaDB's SIMULTANEOUS_ASSIGNMENT, so `SET a = a + 1, b = a` reads the old `a` as PostgreSQL and
 *   SQLite do (MySQL has no such mode: see atomic.ts for how updates are written there);
 * - READ COMMITTED, PostgreSQL's default, so the same statements take the same locks' worth of risk;
 * - a server-side statement timeout (`max_statement_time` on MariaDB, `max_execution_time` on MySQL).
 * Hot reads use `execute`, which prepares a statement once per connection and keeps it.
 */
import knexFactory from 'knex';
import type { Knex } from 'knex';
import type { Connection, ExecuteValues, ResultSetHeader, RowDataPacket } from 'mysql2';
import { ACQUIRE_TIMEOUT_MS, announce, KNEX_LOG, nativeSql, runTransaction, withConnection } from './db.js';
import type { Db, DbLimits, HotStatement } from './db.js';
import { tlsOptions } from './tls.js';
import type { MysqlTarget } from './url.js';

const query = <T>(connection: Connection, sql: string): Promise<T> =>
  new Promise((resolve, reject) => {
    connection.query(sql, (error, rows) => {
      if (error) reject(error);
      else resolve(rows as T);
    });
  });

/** The session settings of every new connection; exported for the tests that check them. */
export async function setUpSession(connection: Connection, statementTimeoutMs: number): Promise<void> {
  const [row] = await query<Array<{ v: string }>>(connection, 'SELECT VERSION() AS v');
  const mariadb = /mariadb/i.test(row?.v ?? '');
  const modes = mariadb ? "'STRICT_ALL_TABLES', 'SIMULTANEOUS_ASSIGNMENT'" : "'STRICT_ALL_TABLES'";
  const timeout = mariadb
    ? `max_statement_time = ${statementTimeoutMs / 1000}`
    : `max_execution_time = ${statementTimeoutMs}`;
  await query(
    connection,
    `SET SESSION time_zone = '+00:00', sql_mode = CONCAT_WS(',', NULLIF(@@sql_mode, ''), ${modes}), ` + timeout,
  );
  await query(connection, 'SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED');
}

export function openMysql(target: MysqlTarget, limits: DbLimits): Db {
  const tls = tlsOptions(target.tls);
  const connection: Knex.MySql2ConnectionConfig = {
    ...(target.socketPath === null ? { host: target.host, port: target.port } : { socketPath: target.socketPath }),
    ...(target.user === null ? {} : { user: target.user }),
    ...(target.password === null ? {} : { password: target.password }),
    database: target.database,
    charset: 'utf8mb4', // knex also uses it as the charset of the tables it creates
    timezone: 'Z',
    dateStrings: false,
    supportBigNumbers: true,
    bigNumberStrings: false,
    connectTimeout: target.connectTimeoutMs,
    enableKeepAlive: true,
    multipleStatements: false,
    // mysql2 takes Node's TLS options; knex's type only knows the mariasql driver's.
    ...(tls === undefined ? {} : { ssl: tls as Knex.MariaSslConfiguration }),
  };
  const knex: Knex = knexFactory({
    client: 'mysql2',
    connection,
    pool: {
      min: 0,
      max: limits.poolMax,
      idleTimeoutMillis: 30_000,
      afterCreate(raw: Connection, done: (error: Error | null, raw: Connection) => void) {
        setUpSession(raw, limits.statementTimeoutMs).then(
          () => done(null, raw),
          (error: unknown) => done(error instanceof Error ? error : new Error(String(error)), raw),
        );
      },
    },
    acquireConnectionTimeout: ACQUIRE_TIMEOUT_MS,
    log: KNEX_LOG,
  });

  return {
    dialect: 'mysql',
    knex,
    hot(_name, build): HotStatement {
      let sql: string | undefined;
      // T: what mysql2 answers for this statement (rows for a read, a header for a write).
      const execute = <T extends RowDataPacket[] | ResultSetHeader>(bindings: readonly unknown[]): Promise<T> => {
        sql ??= nativeSql(build);
        const text = sql;
        announce(knex, text, bindings);
        return withConnection(
          knex,
          (raw: Connection) =>
            new Promise<T>((resolve, reject) => {
              raw.execute<T>(text, bindings as ExecuteValues[], (error, result) => {
                if (error) reject(error);
                else resolve(result);
              });
            }),
        );
      };
      const run = async (bindings: readonly unknown[]): Promise<number> =>
        (await execute<ResultSetHeader>(bindings)).affectedRows;
      return {
        first: async (bindings) => (await execute<RowDataPacket[]>(bindings))[0],
        all: (bindings) => execute<RowDataPacket[]>(bindings),
        run,
        write: run, // each statement its own commit: the server commits them side by side
      };
    },
    transaction: (work) => runTransaction(knex, 'BEGIN', work),
    close: () => knex.destroy(),
  };
}
