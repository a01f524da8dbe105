/**
 * Whether the database answers. The one place where a database that cannot be reached becomes
 * `UnavailableError` (503, docs/design.md#http-status-codes) instead of a 500: every repo of the store is
 * wrapped here (guardRepo). On PostgreSQL and MariaDB/MySQL a repo call also gets a deadline, so a
 * network that silently drops packets still answers 503 in about two seconds (the drivers' own connect,
 * acquire and statement timeouts cover the rest). And what the calls find is watched (availability):
 * operators see an outage and its end once each, with the cause (docs/design.md#logs-and-availability),
 * not as a stream of per-request lines.
 */
import { UnavailableError } from '../../domain/errors.js';

export type AvailabilityEvent = { readonly up: false; readonly cause: string } | { readonly up: true };

export interface Availability {
  /** A store call failed because the database cannot be reached or answer now. */
  failed(error: unknown): void;
  /** A store call succeeded. */
  succeeded(): void;
  /** `listener` hears each change (down, then up again), never a repeat. */
  onChange(listener: (event: AvailabilityEvent) => void): void;
}

/** What went wrong, in one line: the driver's code and message under our UnavailableError. */
export function causeOf(error: unknown): string {
  let inner: unknown = error;
  while (inner instanceof UnavailableError && inner.cause !== undefined) inner = inner.cause;
  if (inner instanceof UnavailableError) return 'no answer within the store call deadline';
  if (!(inner instanceof Error)) return String(inner);
  const code = (inner as Error & { code?: unknown }).code;
  return typeof code === 'string' && !inner.message.includes(code) ? `${code}: ${inner.message}` : inner.message;
}

export function availability(): Availability {
  let up = true;
  const listeners: Array<(event: AvailabilityEvent) => void> = [];
  const emit = (event: AvailabilityEvent): void => {
    for (const listener of listeners) listener(event);
  };
  return {
    failed(error) {
      if (!up) return;
      up = false;
      emit({ up: false, cause: causeOf(error) });
    },
    succeeded() {
      if (up) return;
      up = true;
      emit({ up: true });
    },
    onChange(listener) {
      listeners.push(listener);
    },
  };
}

/** Repo calls are point queries; one that takes longer than this is answered 503. */
export const CALL_DEADLINE_MS = 2500;

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  // mysql2
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_TOO_MANY_USER_CONNECTIONS',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_LOCK_DEADLOCK',
  'ER_QUERY_TIMEOUT',
  'ER_STATEMENT_TIMEOUT',
  'ER_SERVER_SHUTDOWN',
]);

/** MariaDB/MySQL error numbers without a stable code name across versions: statement timeouts. */
const MYSQL_ERRNOS = new Set([1969, 3024, 1053, 1040, 1205, 1213]);

/** PostgreSQL SQLSTATEs: shutdown, cannot connect now, too many connections, timeouts, deadlocks. */
const PG_STATES = new Set(['57P01', '57P02', '57P03', '53300', '53100', '53200', '57014', '40P01', '40001']);

// pg's connect timeout destroys the socket with a bare `Error('timeout expired')` (no code), which
// reaches the caller when the pool hands over its creation error.
const DRIVER_MESSAGES =
  /^timeout expired$|Connection terminated|Query read timeout|Client has encountered a connection error|Client was closed|timeout exceeded when trying to connect|Can't add new command when connection is in closed state|Connection lost|connect ETIMEDOUT/;

/** True when `error` says the database cannot be reached or cannot answer now (not a bug of ours). */
export function isUnavailable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 3) return false;
  if (error instanceof UnavailableError) return true;
  if (error.name === 'KnexTimeoutError') return true; // no pooled connection in time
  const fields = error as Error & { code?: unknown; errno?: unknown; fatal?: unknown };
  const code = typeof fields.code === 'string' ? fields.code : '';
  if (NETWORK_CODES.has(code)) return true;
  if (fields.fatal === true) return true; // mysql2: the connection is gone
  if (typeof fields.errno === 'number' && MYSQL_ERRNOS.has(fields.errno)) return true;
  if (/^08[0-9A-Z]{3}$/.test(code) || PG_STATES.has(code)) return true; // 08xxx: connection exception
  if (/^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|PROTOCOL|NOMEM)/.test(code)) return true;
  if (DRIVER_MESSAGES.test(error.message)) return true;
  if ('errors' in error && Array.isArray(error.errors)) {
    if (error.errors.some((inner) => isUnavailable(inner, depth + 1))) return true; // AggregateError
  }
  return isUnavailable(error.cause, depth + 1);
}

function translate(error: unknown): unknown {
  return isUnavailable(error) && !(error instanceof UnavailableError)
    ? new UnavailableError('db_unavailable', { cause: error })
    : error;
}

/** Runs `run` with a deadline: a call the database does not answer within it is answered 503. */
async function bounded<T>(run: () => T | Promise<T>, deadlineMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new UnavailableError('db_unavailable')), deadlineMs);
  });
  try {
    return await Promise.race([run(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function guarded<T>(run: () => T | Promise<T>, deadlineMs: number | null, watch?: Availability): Promise<T> {
  try {
    const result = await (deadlineMs === null ? run() : bounded(run, deadlineMs));
    watch?.succeeded();
    return result;
  } catch (error) {
    const translated = translate(error);
    if (translated instanceof UnavailableError) watch?.failed(translated);
    else watch?.succeeded(); // the database answered, with an error of ours
    throw translated;
  }
}

/**
 * The same repo, every method translating database-unreachable errors and, unless `deadlineMs` is
 * null, bounded in time; `watch` hears whether each call found the database answering. A null
 * deadline is for SQLite: its driver answers synchronously, every wait in it is already bounded (the
 * busy timeout, knex's acquire timeout), and no network can drop its packets, so a timer and a race
 * per call would only cost time.
 */
const ASYNC_GENERATOR_FUNCTION: unknown = Object.getPrototypeOf(async function* () {
  // only its prototype is wanted
});

export function guardRepo<T extends object>(
  repo: T,
  deadlineMs: number | null = CALL_DEADLINE_MS,
  watch?: Availability,
): T {
  const wrapped: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(repo)) {
    if (typeof value !== 'function') wrapped[key] = value;
    else if (Object.getPrototypeOf(value) === ASYNC_GENERATOR_FUNCTION) {
      // A method that reads in batches: each batch is a call of its own, with its own deadline.
      wrapped[key] = (...args: unknown[]): AsyncIterable<unknown> => ({
        [Symbol.asyncIterator]() {
          const inner = (value as (...a: unknown[]) => AsyncGenerator).apply(repo, args);
          return {
            next: () => guarded(() => inner.next(), deadlineMs, watch),
            return: (result?: unknown) => inner.return(result),
          };
        },
      });
    } else {
      wrapped[key] = (...args: unknown[]) =>
        guarded(() => (value as (...a: unknown[]) => unknown).apply(repo, args), deadlineMs, watch);
    }
  }
  return wrapped as T;
}
