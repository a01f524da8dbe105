/** The database a bench server runs on: SQLite in its data folder, or a fresh database on a server. */
import { tmpdir } from 'node:os';
import { adminQuery, urlOf } from '../../test/helpers/admin-sql.js';
import { parseDatabaseUrl } from '../../src/services/store/url.js';
import type { MysqlTarget, PgTarget } from '../../src/services/store/url.js';

export type BenchDatabase = 'sqlite' | 'pg' | 'mysql';

/** Where each server database comes from: the bench's own variable first, then the test suite's. */
export const DATABASE_URL_VARIABLES: Readonly<Record<'pg' | 'mysql', readonly string[]>> = {
  pg: ['AUTHSVC_BENCH_PGURL', 'AUTHSVC_TEST_PGURL'],
  mysql: ['AUTHSVC_BENCH_MYSQLURL', 'AUTHSVC_TEST_MYSQLURL'],
};

export interface PreparedDatabase {
  /** AUTHSVC_AUTHDB for the server. */
  readonly authdb: string;
  drop(): Promise<void>;
}

/** The server URL of `database` from the environment, or null when none is set. */
export function serverUrlOf(database: 'pg' | 'mysql'): string | null {
  for (const name of DATABASE_URL_VARIABLES[database]) {
    const value = process.env[name]?.trim();
    if (value !== undefined && value !== '') return value;
  }
  return null;
}

/** SQLite: a file in the server's data folder. pg/mysql: a database of its own, dropped by `drop`. */
export async function prepareDatabase(database: BenchDatabase, tag: string): Promise<PreparedDatabase> {
  if (database === 'sqlite') return { authdb: 'sqlite:///bench.sqlite', drop: () => Promise.resolve() };
  const url = serverUrlOf(database);
  if (url === null) throw new Error(`--db ${database} needs ${DATABASE_URL_VARIABLES[database].join(' or ')}`);
  const parsed = parseDatabaseUrl(url, tmpdir());
  if (!parsed.ok || parsed.target.dialect === 'sqlite') throw new Error(`not a database server URL: ${database}`);
  const admin: PgTarget | MysqlTarget = parsed.target;
  const name = `authsvc_bench_${process.pid}_${tag}`;
  const quoted = database === 'pg' ? `"${name}"` : `\`${name}\``;
  await adminQuery(admin, `CREATE DATABASE ${quoted}`);
  return {
    authdb: urlOf({ ...admin, database: name }),
    drop: () => adminQuery(admin, `DROP DATABASE IF EXISTS ${quoted}${database === 'pg' ? ' WITH (FORCE)' : ''}`),
  };
}
