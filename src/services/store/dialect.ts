/**
 * What differs between the three databases, in one place: how a time and a boolean are stored
 * and read back (docs/design.md#database-urls-times-and-models; docs/design.md#times-and-row-types-by-dialect). Times
 * are always bound from the injected clock, never a database default: SQLite keeps integer milliseconds, PostgreSQL
 * `timestamptz(3)`, MariaDB/MySQL `DATETIME(3)` in UTC.
 */
export type Dialect = 'sqlite' | 'pg' | 'mysql';

export function timeToDb(dialect: Dialect, ms: number): number | Date {
  return dialect === 'sqlite' ? ms : new Date(ms);
}

export function timeFromDb(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'string') {
    const n = Number(value);
    return Number.isFinite(n)
      ? n
      : Date.parse(value.endsWith('Z') || /[+-]\d\d:?\d\d$/.test(value) ? value : value + 'Z');
  }
  throw new TypeError(`not a stored time: ${typeof value}`);
}

export function optionalTimeFromDb(value: unknown): number | null {
  return value === null || value === undefined ? null : timeFromDb(value);
}

export function boolFromDb(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 1n;
}

export function intFromDb(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

/** JSON is stored as text everywhere (and compared as text for compare-and-swap updates). */
export function jsonToDb(value: unknown): string {
  return JSON.stringify(value);
}

/** The drivers' error fields that tell a constraint violation apart, on all three databases. */
function codesOf(error: unknown): { code?: unknown; errno?: unknown } {
  return typeof error === 'object' && error !== null ? error : {};
}

/** A write that would duplicate a unique key (an email another row holds, a row another instance inserted). */
export function isUniqueViolation(error: unknown): boolean {
  const { code, errno } = codesOf(error);
  return (
    code === '23505' || // PostgreSQL
    errno === 1062 || // MariaDB/MySQL ER_DUP_ENTRY
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}

/** A write whose parent row is gone: the session (or user) of a new key was deleted meanwhile. */
export function isForeignKeyViolation(error: unknown): boolean {
  const { code, errno } = codesOf(error);
  return code === '23503' || errno === 1452 || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}
