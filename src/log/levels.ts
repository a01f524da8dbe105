/** The log levels, most severe first (winston's npm levels, without the ones authsvc never uses). */
export type LogLevel = 'error' | 'warn' | 'info' | 'debug';
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const satisfies readonly LogLevel[];

/** winston's numbers: a line is written when its level's number is at most the configured one's. */
export const LEVEL_RANKS: Readonly<Record<LogLevel, number>> = { error: 0, warn: 1, info: 2, debug: 3 };
