/**
 * The one storage suite on three databases (docs/design.md#tests-use-real-components). A test file
 * wraps its tests in `forEachDatabase((db) => { … })`: they run on SQLite always, and on PostgreSQL and
 * MariaDB/MySQL when AUTHSVC_TEST_PGURL / AUTHSVC_TEST_MYSQLURL are set (always in CI); otherwise
 * those suites show as skipped, naming the variable. `db.fresh()` makes a new empty database (a
 * temporary file on SQLite, `CREATE DATABASE` on the servers) and every one is dropped after the file.
 * The URL's own database is only used to connect; nothing is written there.
 *
 *   forEachDatabase((db) => {
 *     let server: TestServer;
 *     before(async () => { server = await startTestServer({ database: db }); });
 *     after(() => server.close());
 *     it('…', async () => { … });
 *   });
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe } from 'node:test';
import { parseDatabaseUrl } from '../../src/services/store/url.js';
import { adminQuery } from './admin-sql.js';

export { urlOf } from './admin-sql.js';
import type { DatabaseTarget, MysqlTarget, PgTarget } from '../../src/services/store/url.js';

export type DatabaseKind = 'sqlite' | 'pg' | 'mysql';

export interface TestDatabase {
  readonly kind: DatabaseKind;
  /** 'SQLite', 'PostgreSQL' or 'MariaDB/MySQL'. */
  readonly label: string;
  /** A new, empty database, dropped when the test file ends. */
  fresh(): Promise<DatabaseTarget>;
}

const VARIABLES = { pg: 'AUTHSVC_TEST_PGURL', mysql: 'AUTHSVC_TEST_MYSQLURL' } as const;
const LABELS = { sqlite: 'SQLite', pg: 'PostgreSQL', mysql: 'MariaDB/MySQL' } as const;

/** The server URL of a kind, or null when its variable is not set. */
export function serverUrl(kind: 'pg' | 'mysql'): string | null {
  const value = process.env[VARIABLES[kind]];
  return value === undefined || value.trim() === '' ? null : value.trim();
}

let counter = 0;
const uniqueName = (): string => `authsvc_t${process.pid}_${++counter}_${randomBytes(3).toString('hex')}`;

function sqliteDatabase(): TestDatabase {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return {
    kind: 'sqlite',
    label: LABELS.sqlite,
    fresh() {
      const dir = mkdtempSync(join(tmpdir(), 'authsvc-db-'));
      dirs.push(dir);
      return Promise.resolve({ dialect: 'sqlite', filename: join(dir, 'authsvc.sqlite') });
    },
  };
}

function adminTarget(kind: 'pg' | 'mysql', url: string): PgTarget | MysqlTarget {
  const parsed = parseDatabaseUrl(url, tmpdir());
  if (!parsed.ok || parsed.target.dialect !== kind) {
    throw new Error(`${VARIABLES[kind]} is not a ${LABELS[kind]} URL: ${parsed.ok ? url : parsed.problem}`);
  }
  return parsed.target;
}

function serverDatabase(kind: 'pg' | 'mysql', url: string): TestDatabase {
  const admin = adminTarget(kind, url);
  const created: string[] = [];
  after(async () => {
    for (const name of created) {
      await adminQuery(
        admin,
        kind === 'pg' ? `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)` : `DROP DATABASE IF EXISTS \`${name}\``,
      );
    }
  });
  return {
    kind,
    label: LABELS[kind],
    async fresh() {
      const name = uniqueName();
      // MariaDB: the server's usual case-insensitive default, which the migrations must override
      // (docs/design.md#mariadb-binary-collation).
      await adminQuery(
        admin,
        kind === 'pg'
          ? `CREATE DATABASE "${name}"`
          : `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`,
      );
      created.push(name);
      return { ...admin, database: name };
    },
  };
}

/** The databases this run can use: SQLite, and each server whose URL is set. */
export function availableKinds(): DatabaseKind[] {
  return ['sqlite', ...(['pg', 'mysql'] as const).filter((kind) => serverUrl(kind) !== null)];
}

/** Runs `suite` once per database, each in a `describe('on <database>')`. */
export function forEachDatabase(
  suite: (db: TestDatabase) => void,
  kinds: readonly DatabaseKind[] = ['sqlite', 'pg', 'mysql'],
): void {
  for (const kind of kinds) {
    const url = kind === 'sqlite' ? '' : serverUrl(kind);
    if (url === null) {
      describe(`on ${LABELS[kind]}`, { skip: `${VARIABLES[kind as 'pg' | 'mysql']} is not set` }, () => undefined);
      continue;
    }
    describe(`on ${LABELS[kind]}`, () => {
      suite(kind === 'sqlite' ? sqliteDatabase() : serverDatabase(kind, url));
    });
  }
}
