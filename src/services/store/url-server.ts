/**
 * The network half of database URLs: `//[user[:password]@]host[:port]/database[?params]` for
 * PostgreSQL and MariaDB/MySQL. Credentials and the database name are percent-decoded (a password
 * holding "@" or "/" is written %40, %2F), IPv6 hosts go in brackets, and only the query parameters
 * listed below are accepted: each changes how we connect, so an unknown one is refused, not ignored.
 */
import { isAbsolute, resolve } from 'node:path';

/** TLS to the database server: `verify` says what is checked of its certificate. */
export type TlsSetting =
  | { readonly mode: 'off' }
  | { readonly mode: 'on'; readonly verify: 'none' | 'ca' | 'full'; readonly caFile: string | null };

interface ServerTargetBase {
  readonly host: string;
  readonly port: number;
  /** A Unix socket (a directory for PostgreSQL, the socket file for MySQL) instead of host:port. */
  readonly socketPath: string | null;
  readonly user: string | null;
  readonly password: string | null;
  readonly database: string;
  readonly connectTimeoutMs: number;
  readonly tls: TlsSetting;
}

export interface PgTarget extends ServerTargetBase {
  readonly dialect: 'pg';
  readonly flavour: 'postgresql';
  readonly applicationName: string;
}

export interface MysqlTarget extends ServerTargetBase {
  readonly dialect: 'mysql';
  /** What the URL's scheme said; the server itself is asked whether it is MariaDB. */
  readonly flavour: 'mysql' | 'mariadb';
}

type Parsed<T> = { target: T } | { problem: string };

/** Short, so that a database that does not answer gives 503 quickly (docs/design.md#bounded-database-waits). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 2000;

const PG_SSLMODES: Readonly<Record<string, TlsSetting>> = {
  // libpq's allow/prefer try TLS and fall back; `pg` cannot fall back, so they mean no TLS here.
  disable: { mode: 'off' },
  allow: { mode: 'off' },
  prefer: { mode: 'off' },
  require: { mode: 'on', verify: 'none', caFile: null },
  'verify-ca': { mode: 'on', verify: 'ca', caFile: null },
  'verify-full': { mode: 'on', verify: 'full', caFile: null },
};
const MYSQL_SSLMODES: Readonly<Record<string, TlsSetting>> = {
  disabled: { mode: 'off' },
  preferred: { mode: 'off' },
  required: { mode: 'on', verify: 'none', caFile: null },
  verify_ca: { mode: 'on', verify: 'ca', caFile: null },
  verify_identity: { mode: 'on', verify: 'full', caFile: null },
};

const decode = (text: string): string | null => {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
};

export function parseServerUrl(
  dialect: 'pg' | 'mysql',
  scheme: string,
  rest: string,
  basedir: string,
): Parsed<PgTarget | MysqlTarget> {
  const example = `${scheme}://user:password@host:${dialect === 'pg' ? 5432 : 3306}/database`;
  if (!rest.startsWith('//')) return { problem: `must look like ${example}` };
  const afterSlashes = rest.slice(2);
  const queryAt = afterSlashes.indexOf('?');
  const beforeQuery = queryAt === -1 ? afterSlashes : afterSlashes.slice(0, queryAt);
  const query = new URLSearchParams(queryAt === -1 ? '' : afterSlashes.slice(queryAt + 1));
  const slashAt = beforeQuery.indexOf('/');
  const authority = slashAt === -1 ? beforeQuery : beforeQuery.slice(0, slashAt);
  const database = decode(slashAt === -1 ? '' : beforeQuery.slice(slashAt + 1));
  if (database === null || database === '' || database.includes('/')) {
    return { problem: `needs a database name after the host: ${example}` };
  }

  const at = authority.lastIndexOf('@');
  const userinfo = at === -1 ? null : authority.slice(0, at);
  const hostport = at === -1 ? authority : authority.slice(at + 1);
  let user: string | null = null;
  let password: string | null = null;
  if (userinfo !== null) {
    const colon = userinfo.indexOf(':');
    user = decode(colon === -1 ? userinfo : userinfo.slice(0, colon));
    password = colon === -1 ? null : decode(userinfo.slice(colon + 1));
    if (user === null || (colon !== -1 && password === null)) {
      return { problem: 'has a badly percent-encoded user name or password (write "@" as %40, ":" as %3A)' };
    }
    if (user === '') user = null;
  }

  const hp = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*))(?::(\d{1,5}))?$/.exec(hostport);
  if (hp === null) return { problem: `has a malformed host "${hostport}" (IPv6 addresses go in brackets)` };
  const host = decode(hp[1] ?? hp[2] ?? '') ?? '';
  const port = hp[3] === undefined ? (dialect === 'pg' ? 5432 : 3306) : Number(hp[3]);
  if (port < 1 || port > 65_535) return { problem: `has a port out of range (${hp[3] ?? ''})` };

  const params = dialect === 'pg' ? pgParams(query, basedir) : mysqlParams(query, basedir);
  if ('problem' in params) return params;
  const socketPath = params.socketPath;
  if (host === '' && socketPath === null) return { problem: `needs a host: ${example}` };

  const base = {
    host: host === '' ? 'localhost' : host,
    port,
    socketPath,
    user,
    password,
    database,
    connectTimeoutMs: params.connectTimeoutMs,
    tls: params.tls,
  };
  return {
    target:
      dialect === 'pg'
        ? { ...base, dialect, flavour: 'postgresql', applicationName: params.applicationName }
        : { ...base, dialect, flavour: scheme === 'mariadb' ? 'mariadb' : 'mysql' },
  };
}

interface Params {
  readonly socketPath: string | null;
  readonly connectTimeoutMs: number;
  readonly tls: TlsSetting;
  readonly applicationName: string;
}

function readParams(
  query: URLSearchParams,
  basedir: string,
  names: { mode: readonly string[]; ca: string; socket: string; modes: Readonly<Record<string, TlsSetting>> },
  extra: (name: string, value: string) => string | null | undefined,
): Params | { problem: string } {
  let tls: TlsSetting = { mode: 'off' };
  let caFile: string | null = null;
  let socketPath: string | null = null;
  let connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS;
  let applicationName = 'authsvc';
  const known = [...names.mode, names.ca, names.socket, 'connect_timeout', 'application_name'];
  for (const [name, value] of query) {
    if (names.mode.includes(name)) {
      const mode = names.modes[value.toLowerCase()];
      if (mode === undefined) {
        return { problem: `has ${name}=${value}; use one of ${Object.keys(names.modes).join(', ')}` };
      }
      tls = mode;
    } else if (name === names.ca) {
      caFile = isAbsolute(value) ? value : resolve(basedir, value);
    } else if (name === names.socket) {
      if (!isAbsolute(value)) return { problem: `has ${name}=${value}, which is not an absolute path` };
      socketPath = value;
    } else if (name === 'connect_timeout') {
      const seconds = Number(value);
      if (!/^\d+(\.\d+)?$/.test(value) || seconds <= 0 || seconds > 60) {
        return { problem: `has connect_timeout=${value}; give seconds, more than 0 and at most 60` };
      }
      connectTimeoutMs = Math.round(seconds * 1000);
    } else if (name === 'application_name') {
      applicationName = value.slice(0, 63);
    } else {
      const handled = extra(name, value);
      if (handled === undefined) {
        return { problem: `has the query parameter "${name}", which authsvc does not know (${known.join(', ')})` };
      }
      if (handled !== null) return { problem: handled };
    }
  }
  if (caFile !== null) {
    if (tls.mode === 'off') return { problem: `has ${names.ca} but TLS is off (set ${names.mode[0] ?? ''})` };
    tls = { ...tls, caFile };
  }
  return { socketPath, connectTimeoutMs, tls, applicationName };
}

function pgParams(query: URLSearchParams, basedir: string): Params | { problem: string } {
  return readParams(
    query,
    basedir,
    { mode: ['sslmode'], ca: 'sslrootcert', socket: 'host', modes: PG_SSLMODES },
    () => undefined,
  );
}

function mysqlParams(query: URLSearchParams, basedir: string): Params | { problem: string } {
  return readParams(
    query,
    basedir,
    { mode: ['ssl_mode', 'ssl-mode'], ca: 'ssl_ca', socket: 'unix_socket', modes: MYSQL_SSLMODES },
    (name, value) => {
      // pymysql URLs often carry charset=utf8mb4; we always use utf8mb4 and binary comparisons.
      if (name !== 'charset') return undefined;
      return /^utf8mb4$/i.test(value) ? null : `has charset=${value}; authsvc always uses utf8mb4`;
    },
  );
}
