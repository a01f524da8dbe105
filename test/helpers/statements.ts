/**
 * Records the SQL text of every statement this process sends to a database driver, at the driver
 * itself (better-sqlite3's statements, pg's `Client#query`, mysql2's `Connection#query` and
 * `#execute`), so knex queries and the store's own prepared statements are seen alike. Tests use it to
 * prove that two request paths run the same statements (the account-existence timing rule); the
 * drivers run unchanged, this only looks.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

type Method = (this: unknown, ...args: unknown[]) => unknown;
let sink: string[] | null = null;
let installed = false;

function tap(proto: Record<string, unknown>, name: string, sqlOf: (self: unknown, args: unknown[]) => unknown): void {
  const original = proto[name] as Method;
  proto[name] = function (this: unknown, ...args: unknown[]) {
    const sql = sqlOf(this, args);
    if (sink !== null && typeof sql === 'string') sink.push(sql.replace(/\s+/g, ' ').trim());
    return original.apply(this, args);
  };
}

function install(): void {
  if (installed) return;
  installed = true;
  const Database = require('better-sqlite3') as new (path: string) => {
    prepare(sql: string): object;
    close(): void;
  };
  const scratch = new Database(':memory:');
  const statement = Object.getPrototypeOf(scratch.prepare('SELECT 1')) as Record<string, unknown>;
  scratch.close();
  for (const name of ['run', 'get', 'all', 'iterate']) {
    tap(statement, name, (self) => (self as { source: string }).source);
  }
  const pg = require('pg') as { Client: { prototype: Record<string, unknown> } };
  tap(pg.Client.prototype, 'query', (_self, [first]) =>
    typeof first === 'string' ? first : (first as { text?: string } | undefined)?.text,
  );
  const mysql = require('mysql2') as { Connection: { prototype: Record<string, unknown> } };
  const sqlOfMysql = (_self: unknown, [first]: unknown[]): unknown =>
    typeof first === 'string' ? first : (first as { sql?: string } | undefined)?.sql;
  tap(mysql.Connection.prototype, 'query', sqlOfMysql);
  tap(mysql.Connection.prototype, 'execute', sqlOfMysql);
}

/** Runs `work` and returns the statements it sent, in order (one recording at a time). */
export async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  install();
  if (sink !== null) throw new Error('statementsOf: already recording');
  const recorded: string[] = [];
  sink = recorded;
  try {
    await work();
  } finally {
    sink = null;
  }
  return recorded;
}
