/**
 * Logs are JSON lines (winston), one per request plus start-up and security events. Personal data
 * (emails, IPs, user ids, tokens, user agents) is logged only through `pii()`; passwords and keys never.
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

export function createLogger(stream: Writable, level: LogLevel = 'info'): Logger {
  const logger = winston.createLogger({
    level,
    format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
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
