/**
 * Database URLs in SQLAlchemy form and in plain form (docs/design.md#database-urls-times-and-models):
 *   sqlite:///relative.db  sqlite:////absolute.db  sqlite+pysqlite:///x.db
 *   postgresql://user:pass@host:5432/db?sslmode=require  postgresql+psycopg2://…  postgres://…
 *   mysql://…  mysql+pymysql://…  mariadb://…  mariadb+mariadbconnector://…
 * Relative SQLite paths are resolved against the base directory, which holds the database
 * (spec: "Directory holding secret files and the authentication database"). Whatever driver a
 * SQLAlchemy URL names, we connect with our own (`better-sqlite3`, `pg`, `mysql2`); a driver we do not
 * recognise, an unknown query parameter or an unknown scheme is refused with the reason, so that a
 * typo never silently changes how we connect.
 */
import { isAbsolute, resolve } from 'node:path';
import { parseServerUrl } from './url-server.js';
import type { MysqlTarget, PgTarget } from './url-server.js';

export type { MysqlTarget, PgTarget, TlsSetting } from './url-server.js';

export interface SqliteTarget {
  readonly dialect: 'sqlite';
  readonly filename: string;
}

export type DatabaseTarget = SqliteTarget | PgTarget | MysqlTarget;

export type ParsedUrl = { ok: true; target: DatabaseTarget } | { ok: false; problem: string };

/** Python drivers a SQLAlchemy URL may name, per scheme; we accept the URL and use our own driver. */
const DRIVERS: Readonly<Record<string, readonly string[]>> = {
  sqlite: ['pysqlite', 'aiosqlite'],
  postgresql: ['psycopg2', 'psycopg', 'psycopg2cffi', 'pg8000', 'asyncpg', 'pg'],
  mysql: ['pymysql', 'mysqldb', 'mysqlconnector', 'mariadbconnector', 'asyncmy', 'aiomysql', 'mysql2'],
  mariadb: ['pymysql', 'mysqldb', 'mysqlconnector', 'mariadbconnector', 'asyncmy', 'aiomysql', 'mysql2'],
};
const ALIASES: Readonly<Record<string, string>> = { postgres: 'postgresql' };

export function parseDatabaseUrl(url: string, basedir: string): ParsedUrl {
  const match = /^([a-z][a-z0-9]*)(?:\+([a-z0-9_]+))?:(.*)$/i.exec(url.trim());
  if (match === null) {
    return {
      ok: false,
      problem: 'is not a database URL (e.g. sqlite:///authsvc.sqlite, postgresql://user@host/db, mysql://user@host/db)',
    };
  }
  const given = (match[1] ?? '').toLowerCase();
  const scheme = ALIASES[given] ?? given;
  const driver = match[2]?.toLowerCase() ?? null;
  const rest = match[3] ?? '';
  const drivers = DRIVERS[scheme];
  if (drivers === undefined) {
    return {
      ok: false,
      problem: `has an unknown scheme "${given}" (use sqlite:///file.db, postgresql://… or mysql://… / mariadb://…)`,
    };
  }
  if (driver !== null && !drivers.includes(driver)) {
    return {
      ok: false,
      problem: `names the driver "${driver}", which is not one of ${given}'s (${drivers.join(', ')}); authsvc connects with its own driver, so the part after "+" may also be left out`,
    };
  }
  if (scheme === 'sqlite') return parseSqlite(rest, basedir);
  const parsed = parseServerUrl(scheme === 'postgresql' ? 'pg' : 'mysql', scheme, rest, basedir);
  return 'problem' in parsed ? { ok: false, problem: parsed.problem } : { ok: true, target: parsed.target };
}

function parseSqlite(rest: string, basedir: string): ParsedUrl {
  // sqlite:///relative/path and sqlite:////absolute/path (SQLAlchemy); the query string is not used.
  const path = decodeURIComponent(rest.replace(/^\/\/\//, '').replace(/\?.*$/, ''));
  if (!rest.startsWith('///') || path === '' || path === ':memory:') {
    return { ok: false, problem: 'needs a file: sqlite:///relative.db or sqlite:////absolute/path.db' };
  }
  return { ok: true, target: { dialect: 'sqlite', filename: isAbsolute(path) ? path : resolve(basedir, path) } };
}

/** The URL with any password replaced, for logs and messages. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]*:)[^@/]*@/, '$1***@').replace(/([?&]password=)[^&]*/i, '$1***');
}

/** A short description of a target for logs: never the password. */
export function describeTarget(target: DatabaseTarget): string {
  if (target.dialect === 'sqlite') return `sqlite ${target.filename}`;
  const where = target.socketPath ?? `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
  return `${target.flavour} ${target.user ?? ''}@${where}/${target.database}`;
}
