/**
 * PostgreSQL through `pg` and knex's pool. Timeouts are short (docs/design.md#bounded-database-waits): connecting,
 * waiting for a pooled connection, and each statement (server-side `statement_timeout`, plus a client-side
 * `query_timeout` a little longer, for a network that silently drops packets). Hot reads are named
 * prepared statements, parsed once per connection.
 */
import knexFactory from 'knex';
import type { Knex } from 'knex';
import type pg from 'pg';
import { ACQUIRE_TIMEOUT_MS, announce, KNEX_LOG, nativeSql, runTransaction, withConnection } from './db.js';
import type { Db, DbLimits, HotStatement } from './db.js';
import type { Row } from './records.js';
import { tlsOptions } from './tls.js';
import type { PgTarget } from './url.js';

/** Slack of the client-side timeout over the server's, so the server's clearer error usually wins. */
const CLIENT_SLACK_MS = 500;

export function openPg(target: PgTarget, limits: DbLimits): Db {
  const statementTimeout = limits.statementTimeoutMs > 0 ? limits.statementTimeoutMs : undefined;
  const connection: Knex.PgConnectionConfig = {
    host: target.socketPath ?? target.host,
    port: target.port,
    ...(target.user === null ? {} : { user: target.user }),
    ...(target.password === null ? {} : { password: target.password }),
    database: target.database,
    ssl: tlsOptions(target.tls) ?? false,
    connectionTimeoutMillis: target.connectTimeoutMs,
    keepAlive: true,
    application_name: target.applicationName,
    ...(statementTimeout === undefined
      ? {}
      : { statement_timeout: statementTimeout, query_timeout: statementTimeout + CLIENT_SLACK_MS }),
  };
  const knex: Knex = knexFactory({
    client: 'pg',
    connection,
    pool: {
      min: 0,
      max: limits.poolMax,
      idleTimeoutMillis: 30_000,
      // A connection whose query timed out client-side still waits for that query's answer: it is
      // not ready for another one, so the pool replaces it instead of handing it out again.
      validate: (client: pg.Client & { readyForQuery?: boolean }) => client.readyForQuery === true,
    },
    acquireConnectionTimeout: ACQUIRE_TIMEOUT_MS,
    log: KNEX_LOG,
  });

  return {
    dialect: 'pg',
    knex,
    hot(name, build): HotStatement {
      let text: string | undefined;
      const execute = (bindings: readonly unknown[]): Promise<pg.QueryResult<Row>> => {
        text ??= nativeSql(build);
        announce(knex, text, bindings);
        const query = { name, text, values: [...bindings] };
        return withConnection(knex, (client: pg.Client) => client.query<Row>(query));
      };
      const run = async (bindings: readonly unknown[]): Promise<number> => (await execute(bindings)).rowCount ?? 0;
      return {
        first: async (bindings) => (await execute(bindings)).rows[0],
        all: async (bindings) => (await execute(bindings)).rows,
        run,
        write: run, // each statement its own commit: the server commits them side by side
      };
    },
    transaction: (work) => runTransaction(knex, 'BEGIN', work),
    close: () => knex.destroy(),
  };
}
