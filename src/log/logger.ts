/**
 * Logs are JSON lines (winston), one per request plus start-up and security events, or, for people at
 * a terminal, `pretty` lines of the same fields. Personal data (emails, IPs, user ids, tokens, user
 * agents) is logged only through `pii()` (piiHasher, below), so it is a digest in either format; passwords
 * and keys never.
 *
 * The request log runs on every request, so a line must cost a few microseconds: the level is checked
 * before anything is built; the entry is one object (no copy of the fields, no format chain); the
 * transport turns it into a line with a plain function (the line formats below) and hands it to a
 * writer that batches and never blocks (writer.ts). While that transport is the logger's only one, entries go to
 * it directly: winston's object stream between a logger and its transports costs more than the rest
 * of the line together. Add a transport (`root.winston.add(…)`) and every entry goes through winston.
 */
import { createHmac } from 'node:crypto';
import type { Writable } from 'node:stream';
import winston from 'winston';
import TransportStream from 'winston-transport';
import { LEVEL_RANKS } from './levels.js';
import type { LogLevel } from './levels.js';
import { writerFor } from './writer.js';
import type { LineWriter } from './writer.js';

export { LOG_LEVELS } from './levels.js';
export type { LogLevel } from './levels.js';
export { flushStdio } from './writer.js';

/**
 * The two line formats, each one plain function from (time, level, message, fields) to a line: the
 * request log runs this on every request, so there is no chain of format objects, no copy of the
 * fields and no key sorting in between.
 */
export type LogFields = Readonly<Record<string, unknown>>;
export type LogFormat = 'json' | 'pretty';
export type LineFormat = (time: string, level: string, message: string, fields: LogFields | undefined) => string;

/** The keys a line owns; a field of the same name is renamed so that it cannot forge them. */
const RESERVED = new Set(['timestamp', 'level', 'message']);

function hasReserved(fields: LogFields): boolean {
  return 'timestamp' in fields || 'level' in fields || 'message' in fields;
}

function renamed(fields: LogFields): LogFields {
  return Object.fromEntries(
    Object.entries(fields).map(([key, value]) => [RESERVED.has(key) ? `field_${key}` : key, value]),
  );
}

/** JSON.stringify, and for what it refuses (a BigInt, a cycle) a tolerant second pass: a log line never throws. */
function stringify(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    const seen = new WeakSet<object>();
    return JSON.stringify(value, (_key, inner: unknown) => {
      if (typeof inner === 'bigint') return inner.toString();
      if (typeof inner === 'object' && inner !== null) {
        if (seen.has(inner)) return '[Circular]';
        seen.add(inner);
      }
      return inner;
    });
  }
}

/** `{"timestamp":"2026-11-23T20:31:11.123Z","level":"info","message":"listening","url":"http://…"}` */
export const jsonLine: LineFormat = (time, level, message, fields) => {
  const head = `{"timestamp":"${time}","level":"${level}","message":${JSON.stringify(message)}`;
  if (fields === undefined) return `${head}}\n`;
  const body = stringify(hasReserved(fields) ? renamed(fields) : fields);
  // `{}` adds nothing; otherwise the fields' object joins the line's without its opening brace.
  return body.length <= 2 ? `${head}}\n` : `${head},${body.slice(1)}\n`;
};

/** `2026-11-23T20:31:11.123Z info  listening url=http://127.0.0.1:13431/ workers=2` */
export const prettyLine: LineFormat = (time, level, message, fields) => {
  let line = `${time} ${level.padEnd(5)} ${message}`;
  if (fields !== undefined) {
    for (const key of Object.keys(fields)) {
      const value = fields[key];
      if (value === undefined) continue;
      const text = typeof value === 'string' ? value : stringify(value);
      line += ` ${key}=${/[\s"=]/.test(text) ? JSON.stringify(text) : text}`;
    }
  }
  return `${line}\n`;
};

export const LINE_FORMATS: Readonly<Record<LogFormat, LineFormat>> = { json: jsonLine, pretty: prettyLine };

/**
 * Personal data in logs appears only as a keyed digest: HMAC-SHA256 with the PII salt, 128 bits in
 * hex. Equal values give equal digests (so one user's requests can be followed), and without the
 * salt nobody can test a guess against the logs.
 */
export type Pii = (value: string | number) => string;

/**
 * Digests are remembered, because the same few client addresses and users come back on every
 * request and an HMAC costs twenty times a map lookup. The map is bounded (the oldest entry goes
 * first), so a flood of distinct addresses costs memory once, never without end. It holds values the
 * process already has in memory anyway; the logs still see only digests.
 */
export const PII_MEMO_ENTRIES = 4096;

/** One memoised hasher per salt, shared by every part of the process that logs (request log, audit…). */
const shared = new Map<string, Pii>();

export function piiHasher(salt: string): Pii {
  let hasher = shared.get(salt);
  if (hasher === undefined) {
    hasher = memoisedHasher(salt, PII_MEMO_ENTRIES);
    shared.set(salt, hasher);
  }
  return hasher;
}

export function memoisedHasher(salt: string, entries: number): Pii {
  const memo = new Map<string | number, string>();
  return (value) => {
    const known = memo.get(value);
    if (known !== undefined) return known;
    const digest = createHmac('sha256', salt).update(String(value)).digest('hex').slice(0, 32);
    if (memo.size >= entries) memo.delete(memo.keys().next().value as string | number);
    memo.set(value, digest);
    return digest;
  };
}

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** What createLogger returns: a Logger that can also be flushed. */
export interface RootLogger extends Logger {
  /** The winston logger underneath, for more transports (a file, a collector). */
  readonly winston: winston.Logger;
  /** Resolves once every line so far is out of the process (bounded by `timeoutMs`): before exiting. */
  flush(timeoutMs?: number): Promise<void>;
}

/** The object winston carries from a logger to its transport: the caller's fields stay as they are. */
interface Entry {
  level: LogLevel;
  message: string;
  fields: LogFields | undefined;
}

/** winston's symbol for an entry's level (triple-beam's LEVEL), which its transports filter on. */
const LEVEL = Symbol.for('level');

/** A winston transport that formats each entry itself and queues the line on the stream's writer. */
class LineTransport extends TransportStream {
  constructor(
    private readonly writer: LineWriter,
    private readonly format_: LineFormat,
  ) {
    super();
  }

  override log(entry: Entry, next: () => void): void {
    this.writer.write(this.format_(timestamp(), entry.level, entry.message, entry.fields));
    next();
  }
}

/** The ISO time of now, made once per millisecond: many lines share one, and toISOString is not free. */
const clock = { ms: 0, text: '' };
function timestamp(): string {
  const now = Date.now();
  if (now !== clock.ms) {
    clock.ms = now;
    clock.text = new Date(now).toISOString();
  }
  return clock.text;
}

/** A winston format that passes the entry on untouched: formatting happens once, in the transport. */
const asIs = winston.format((entry) => entry)();

/** An unset format is pretty on a terminal and JSON anywhere else (a file, a pipe, a collector). */
export function chooseFormat(stream: Writable, format: LogFormat | null): LogFormat {
  return format ?? ((stream as Writable & { isTTY?: boolean }).isTTY === true ? 'pretty' : 'json');
}

export function createLogger(
  stream: Writable,
  level: LogLevel = 'info',
  format: LogFormat | null = 'json',
): RootLogger {
  const line = LINE_FORMATS[chooseFormat(stream, format)];
  const writer = writerFor(stream, {
    droppedLine: (count) =>
      line(new Date().toISOString(), 'warn', 'log lines dropped: the output was not read fast enough', {
        dropped: count,
      }),
  });
  const transport = new LineTransport(writer, line);
  const winstonLogger = winston.createLogger({
    levels: LEVEL_RANKS,
    level,
    format: asIs,
    // winston declares its transports' type apart from winston-transport's class, which they all extend.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment
    transports: [transport],
  });
  const threshold = LEVEL_RANKS[level];
  const done = (): void => undefined;
  const at =
    (entryLevel: LogLevel) =>
    (message: string, fields?: LogFields): void => {
      if (LEVEL_RANKS[entryLevel] > threshold) return;
      const entry = { level: entryLevel, message, fields, [LEVEL]: entryLevel };
      const { transports } = winstonLogger;
      if (transports.length === 1 && transports[0] === transport) transport.log(entry, done);
      else winstonLogger.log(entry);
    };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    flush: (timeoutMs) => writer.flush(timeoutMs),
    winston: winstonLogger,
  };
}
