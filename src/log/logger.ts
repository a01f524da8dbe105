/**
 * Logs are JSON lines (winston), one per request plus start-up and security events, or, for people at
 * a terminal, `pretty` lines of the same fields. Personal data (emails, IPs, user ids, tokens, user
 * agents) is logged only through `pii()`, so it is a digest in either format; passwords and keys never.
 */
import type { Writable } from 'node:stream';
import winston from 'winston';

export type LogFields = Readonly<Record<string, unknown>>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFormat = 'json' | 'pretty';

/** `2026-11-23T20:31:11.123Z info  listening url=http://127.0.0.1:13431/ workers=2` */
const pretty = winston.format.printf((entry) => {
  const { timestamp, level, message, ...fields } = entry;
  const shown = Object.entries(fields).map(([key, value]) => {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    return `${key}=${/[\s"=]/.test(text) ? JSON.stringify(text) : text}`;
  });
  return [String(timestamp), level.padEnd(5), String(message), ...shown].join(' ');
});

/** An unset format is pretty on a terminal and JSON anywhere else (a file, a pipe, a collector). */
export function createLogger(stream: Writable, level: LogLevel = 'info', format: LogFormat | null = 'json'): Logger {
  const chosen = format ?? ((stream as Writable & { isTTY?: boolean }).isTTY === true ? 'pretty' : 'json');
  const logger = winston.createLogger({
    level,
    format: winston.format.combine(winston.format.timestamp(), chosen === 'json' ? winston.format.json() : pretty),
    // winston's Stream transport is declared apart from the TransportStream type it extends.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment
    transports: [new winston.transports.Stream({ stream })],
  });
  return {
    debug: (message, fields) => logger.debug(message, fields),
    info: (message, fields) => logger.info(message, fields),
    warn: (message, fields) => logger.warn(message, fields),
    error: (message, fields) => logger.error(message, fields),
  };
}
