/**
 * One open database: knex for most statements, plus cached prepared statements for the hot path
 * (the session, user and API-key lookups, the access checks' standings, the session insert), because
 * knex re-builds and re-prepares every query (docs/design.md#sqlite-knex-re-prepares-every-statement). Each dialect
 * opens its own way (sqlite.ts, pg.ts, mysql.ts); this file holds what they share.
 */
import type { Knex } from 'knex';
import type { Dialect } from './dialect.js';
import type { Row } from './records.js';
import type { DatabaseTarget } from './url.js';

/**
 * A statement prepared once per connection; `bindings` follow the order of the query's placeholders.
 * `first` and `all` read; `run` writes and answers how many rows it changed.
 */
export interface HotStatement {
  first(bindings: readonly unknown[]): Promise<Row | undefined>;
  all(bindings: readonly unknown[]): Promise<Row[]>;
  run(bindings: readonly unknown[]): Promise<number>;
  /**
   * `run` for a write that stands alone (no read of the same request depends on it before it resolves):
   * on SQLite, the writes of one event-loop turn share one commit (each statement still all-or-nothing
   * on its own, and each resolves only once committed); elsewhere the same as `run`.
   */
  write(bindings: readonly unknown[]): Promise<number>;
}

/** What builds a hot statement's SQL: a query builder, or a raw statement for what builders cannot say. */
export type StatementBuilder = () => Knex.QueryBuilder | Knex.Raw;

export interface Db {
  readonly dialect: Dialect;
  readonly knex: Knex;
  /**
   * A hot statement whose SQL is compiled once from `build()` (the builder's own binding values are
   * ignored) and prepared lazily on first use, since tables may not exist before migration. `name`
   * must be unique per statement: PostgreSQL prepares it under that name on each connection.
   */
  hot(name: string, build: StatementBuilder): HotStatement;
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back when it throws. Every
   * statement of `work` must go through `tx.on` (see `Tx`).
   */
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** How long statements may run, per purpose (docs/design.md#bounded-database-waits). */
export interface DbLimits {
  /** Server-side statement timeout; 0 = none (migrations of large tables). */
  readonly statementTimeoutMs: number;
  /** Connections per process (PostgreSQL and MariaDB/MySQL; SQLite always has one). */
  readonly poolMax: number;
}

/** Serving: every statement is an indexed point query, so a slow one means trouble, not work. */
export const SERVING_LIMITS: DbLimits = { statementTimeoutMs: 2000, poolMax: 8 };
/** Migrations, seeding and cleanup in the primary. */
export const MAINTENANCE_LIMITS: DbLimits = { statementTimeoutMs: 0, poolMax: 2 };

/** knex waits this long for a pooled connection (its default, 60 s, would hang requests). */
export const ACQUIRE_TIMEOUT_MS = 2000;

/**
 * knex's own logger prints pool errors to the console. Every failure already reaches our log through
 * the store (503 per request, /health), so knex stays quiet except for deprecations.
 */
export const KNEX_LOG = {
  warn: (): void => undefined,
  error: (): void => undefined,
  debug: (): void => undefined,
  deprecate: (method: string, alternative: string): void => {
    process.emitWarning(`knex: ${method} is deprecated, use ${alternative}`, 'DeprecationWarning');
  },
};

/** The SQL of a builder in the driver's own placeholder syntax (`?` or `$1`). */
export function nativeSql(build: StatementBuilder): string {
  return build().toSQL().toNative().sql;
}

export type OpenDb = (target: DatabaseTarget, limits: DbLimits) => Db;

/** The part of knex's client (typed `any` by knex) that lends out a raw pooled connection. */
interface PoolingClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<unknown>;
}

/**
 * An open transaction: the one pooled connection it holds. Statements reach it through `on`, which
 * sets the connection of a knex builder (knex's `.connection()`); a builder left off it would wait
 * for the pool, which the transaction holds.
 */
export interface Tx {
  on<Q extends Knex.QueryBuilder | Knex.Raw>(query: Q): Q;
}

/**
 * Holds one pooled connection for `work`, between `begin` and COMMIT (ROLLBACK when `work` or the
 * commit throws), all through knex's public API: a knex transaction always begins with a plain
 * `BEGIN`, and SQLite needs `BEGIN IMMEDIATE` (sqlite.ts), so the store begins its own.
 */
export async function runTransaction<T>(knex: Knex, begin: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  return withConnection(knex, async (connection: unknown) => {
    const run = (sql: string): Promise<unknown> =>
      knex
        .raw(sql)
        .connection(connection)
        .then(() => undefined);
    const tx: Tx = {
      on(query) {
        query.connection(connection);
        return query;
      },
    };
    await run(begin);
    try {
      const result = await work(tx);
      await run('COMMIT');
      return result;
    } catch (error) {
      // Also after a failed COMMIT, which leaves an SQLite transaction open; the driver's error wins.
      await run('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}

/** Runs `use` on one raw pooled connection (the driver's own object), then gives it back. */
// C names the driver's connection type, which knex's `any` hides; the caller states it.
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
export async function withConnection<C, T>(knex: Knex, use: (connection: C) => Promise<T>): Promise<T> {
  const client = knex.client as PoolingClient;
  const connection = (await client.acquireConnection()) as C;
  try {
    return await use(connection);
  } finally {
    await client.releaseConnection(connection);
  }
}

/**
 * Hot statements bypass knex's builder: they announce themselves to knex's `query` listeners too, so that one
 * listener sees every statement the store runs (the EXPLAIN test, docs/design.md#a-million-users). With no
 * listener this is one check.
 */
export function announce(knex: Knex, sql: string, bindings: readonly unknown[]): void {
  if (knex.listenerCount('query') > 0) knex.emit('query', { sql, bindings: [...bindings], hot: true });
}
