/**
 * Logs are JSON lines (winston), one per request plus start-up and security events, or, for people at
 * a terminal, `pretty` lines of the same fields. Personal data (emails, IPs, user ids, tokens, user
 * agents) is logged only through `pii()`, so it is a digest in either format; passwords and keys never.
 *
 * The request log runs on every request, so a line must cost a few microseconds: the level is checked
 * before anything is built; the entry is one object (no copy of the fields, no format chain); the
 * transport turns it into a line with a plain function (format.ts) and hands it to a writer that
 * batches and never blocks (writer.ts). While that transport is the logger's only one, entries go to
 * it directly: winston's object stream between a logger and its transports costs more than the rest
 * of the line together. Add a transport (`root.winston.add(…)`) and every entry goes through winston.
 */
import type { Writable } from 'node:stream';
import winston from 'winston';
import TransportStream from 'winston-transport';
import { LINE_FORMATS } from './format.js';
import type { LineFormat, LogFields, LogFormat } from './format.js';
import { LEVEL_RANKS } from './levels.js';
import type { LogLevel } from './levels.js';
import { writerFor } from './writer.js';
import type { LineWriter } from './writer.js';

export type { LogFields, LogFormat } from './format.js';
export { LOG_LEVELS } from './levels.js';
export type { LogLevel } from './levels.js';
export { flushStdio } from './writer.js';

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
