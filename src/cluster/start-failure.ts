/**
 * A start that fails for a reason outside the configuration (the database refuses, does not exist or
 * does not know the user; the port is taken; the TLS files cannot be used) ends with ONE line on
 * standard error and exit code 1: what failed, naming the database by its URL with the password
 * replaced by `***`, or the address and port. The driver's stack trace tells an operator nothing and
 * may run to dozens of lines per process, so it is printed only with `loglevel` debug. With workers,
 * a worker that fails to start tells its primary, which prints the line once for all of them.
 */
import cluster from 'node:cluster';
import type { Writable } from 'node:stream';
import type { Config } from '../config/load.js';
import type { StartFailedMessage } from './messages.js';

interface Coded {
  readonly code: string;
  readonly errno: number | null;
  readonly syscall: string;
  readonly message: string;
}

/** Every error in the chain: causes, the parts of an AggregateError. */
function chain(error: unknown, depth = 0): Coded[] {
  if (!(error instanceof Error) || depth > 4) return [];
  const fields = error as Error & { code?: unknown; errno?: unknown; syscall?: unknown };
  const own: Coded = {
    code: typeof fields.code === 'string' ? fields.code : '',
    errno: typeof fields.errno === 'number' ? fields.errno : null,
    syscall: typeof fields.syscall === 'string' ? fields.syscall : '',
    message: error.message,
  };
  const inner = [...('errors' in error && Array.isArray(error.errors) ? (error.errors as unknown[]) : []), error.cause];
  return [own, ...inner.flatMap((next) => chain(next, depth + 1))];
}

const firstLine = (text: string): string => text.split('\n')[0]?.trim() ?? '';

function databaseProblem(found: Coded[], config: Config): string | null {
  const db = `the database ${config.authdbRedacted}`;
  const name = config.authdb.dialect === 'sqlite' ? config.authdb.filename : config.authdb.database;
  const has = (...codes: string[]): Coded | undefined => found.find((c) => codes.includes(c.code));
  const hasErrno = (...errnos: number[]): Coded | undefined =>
    found.find((c) => c.errno !== null && errnos.includes(c.errno));
  const said = (pattern: RegExp): Coded | undefined => found.find((c) => pattern.test(c.message));
  if (has('ECONNREFUSED')) return `${db} refused the connection: is the server running, on that host and port?`;
  if (has('ENOTFOUND', 'EAI_AGAIN')) return `the host of ${db} cannot be resolved`;
  if (has('EHOSTUNREACH', 'ENETUNREACH')) return `${db} cannot be reached: no route to its host`;
  if (has('ETIMEDOUT') || said(/^timeout expired$|timeout exceeded when trying to connect|connection timeout/i)) {
    return `${db} did not answer in time: a wrong host, a firewall, or a server too busy to accept`;
  }
  // PostgreSQL 28P01 and MariaDB/MySQL 1045: the user or the password is wrong (the server does not say which).
  if (has('28P01', 'ER_ACCESS_DENIED_ERROR') ?? hasErrno(1045)) return `${db} refused the user name or password`;
  const refused = has('28000'); // PostgreSQL: no such role, or pg_hba.conf refuses this client
  if (refused) return `${db} refused the login: ${firstLine(refused.message)}`;
  if (has('3D000', 'ER_BAD_DB_ERROR') ?? hasErrno(1049)) {
    return `${db} does not exist: create it first (CREATE DATABASE ${name}), or correct the URL`;
  }
  const denied = has('42501', 'ER_DBACCESS_DENIED_ERROR', 'ER_TABLEACCESS_DENIED_ERROR') ?? hasErrno(1044, 1142);
  if (denied) return `${db} does not let this user create or use the tables: ${firstLine(denied.message)}`;
  const sqlite = found.find((c) => c.code.startsWith('SQLITE_'));
  if (sqlite?.code.startsWith('SQLITE_CANTOPEN') === true) {
    return `${db} cannot be opened: does its folder exist, and may authsvc write there?`;
  }
  if (sqlite !== undefined) return `${db} cannot be used (${sqlite.code}): ${firstLine(sqlite.message)}`;
  const tls = said(/certificate|self[- ]signed|does not support SSL|SSL connection|TLS/i);
  if (tls && !tls.code.startsWith('ERR_OSSL')) return `${db}: the TLS connection failed: ${firstLine(tls.message)}`;
  if (has('ECONNRESET') ?? said(/Connection terminated|Connection lost/)) {
    return `${db} closed the connection while authsvc was connecting (its TLS settings? its connection limit?)`;
  }
  return null;
}

function listenProblem(found: Coded[], config: Config): string | null {
  const where = `${config.listen.includes(':') ? `[${config.listen}]` : config.listen}:${config.port}`;
  const listening = (code: string): boolean =>
    found.some((c) => c.code === code && (c.syscall === 'listen' || c.syscall === 'bind' || c.syscall === ''));
  if (listening('EADDRINUSE')) {
    return `port ${config.port} on ${config.listen} is already in use (by another authsvc or another program): stop it, or choose another port`;
  }
  if (listening('EACCES')) return `not allowed to listen on ${where} (ports below 1024 need privileges)`;
  if (listening('EADDRNOTAVAIL'))
    return `cannot listen on ${where}: ${config.listen} is not an address of this machine`;
  const tls = found.find((c) => c.code.startsWith('ERR_OSSL') || /PEM|key values mismatch/.test(c.message));
  if (tls) return `the TLS certificate or key (tlscertfile, tlscertkey) cannot be used: ${firstLine(tls.message)}`;
  return null;
}

/** What went wrong, in one line without a stack, naming the database (redacted) or the port. */
export function describeStartFailure(error: unknown, config: Config): string {
  const found = chain(error);
  const described = listenProblem(found, config) ?? databaseProblem(found, config);
  if (described !== null) return described;
  const message = error instanceof Error ? firstLine(error.message) : firstLine(String(error));
  return config.authdb.dialect !== 'sqlite' && config.authdb.password !== null && config.authdb.password !== ''
    ? message.split(config.authdb.password).join('***')
    : message;
}

/** The stack (and its causes' stacks) for loglevel debug; null otherwise. */
function stackOf(error: unknown, config: Config): string | null {
  if (config.logLevel !== 'debug' || !(error instanceof Error)) return null;
  const stacks: string[] = [];
  let inner: unknown = error;
  for (let depth = 0; inner instanceof Error && depth < 5; depth++) {
    stacks.push(inner.stack ?? inner.message);
    inner = inner.cause;
  }
  return stacks.join('\ncaused by: ');
}

/** Prints the one line (and with loglevel debug the stack) to `stderr`. */
export function printStartFailure(stderr: Writable, line: string, stack: string | null): void {
  stderr.write(`authsvc: cannot start: ${line}\n${stack === null ? '' : `${stack}\n`}`);
}

/**
 * A start failed in this process: a cluster worker tells its primary (which prints it once for all
 * workers) and prints nothing; a single process or a primary prints it. Resolves with the exit code.
 */
export async function reportStartFailure(error: unknown, config: Config, stderr: Writable): Promise<number> {
  const line = describeStartFailure(error, config);
  const stack = stackOf(error, config);
  const send = process.send?.bind(process);
  if (cluster.isWorker && send !== undefined) {
    const message: StartFailedMessage = { type: 'authsvc:start-failed', line, stack };
    await new Promise<void>((resolve) => send(message, undefined, {}, () => resolve()));
  } else {
    printStartFailure(stderr, line, stack);
  }
  return 1;
}
