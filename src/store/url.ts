/**
 * Database URLs in SQLAlchemy form (`sqlite:///rel.db`, `sqlite:////abs.db`) as the spec uses them.
 * Relative SQLite paths are resolved against the base directory, which holds the database
 * (spec: "Directory holding secret files and the authentication database").
 */
import { isAbsolute, resolve } from 'node:path';

export type DatabaseTarget = { readonly dialect: 'sqlite'; readonly filename: string };

export type ParsedUrl = { ok: true; target: DatabaseTarget } | { ok: false; problem: string };

export function parseDatabaseUrl(url: string, basedir: string): ParsedUrl {
  const match = /^([a-z0-9]+)(?:\+[a-z0-9_]+)?:(.*)$/i.exec(url.trim());
  if (match === null) return { ok: false, problem: 'is not a database URL (e.g. sqlite:///authsvc.sqlite)' };
  const scheme = (match[1] ?? '').toLowerCase();
  const rest = match[2] ?? '';
  if (scheme === 'sqlite') {
    // sqlite:///relative/path and sqlite:////absolute/path (SQLAlchemy); the query string is not used.
    const path = decodeURIComponent(rest.replace(/^\/\/\//, '').replace(/\?.*$/, ''));
    if (!rest.startsWith('///') || path === '') {
      return { ok: false, problem: 'needs a file: sqlite:///relative.db or sqlite:////absolute/path.db' };
    }
    return { ok: true, target: { dialect: 'sqlite', filename: isAbsolute(path) ? path : resolve(basedir, path) } };
  }
  if (['postgresql', 'postgres', 'mysql', 'mariadb'].includes(scheme)) {
    return { ok: false, problem: `uses ${scheme}, which this version does not support yet (only sqlite)` };
  }
  return { ok: false, problem: `has an unknown scheme "${scheme}" (use sqlite:///file.db)` };
}

/** The URL with any password replaced, for logs and messages. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]*:)[^@/]*@/, '$1***@');
}
