/**
 * user-lookup-match by extra_info, in the database (docs/design.md#user-lookup-match-by-extra_info). The SQL
 * here is a prefilter: every user whose extra_info holds the wanted items passes it, and a few others may (1 and
 * 1.0, containment on PostgreSQL, keys the prefilter leaves out). The action keeps the exact rule
 * (holdsItems: types kept apart, deep equality) by checking each row it gets.
 *
 * - PostgreSQL: one containment, `extra_info::jsonb @> dict`, which a GIN index on that expression serves for
 *   every key at once.
 * - SQLite and MariaDB: per key, its JSON type and, for a scalar, its value. The path is a literal in the SQL so
 *   that an operator's index on `json_extract(extra_info, '$.key')` matches it (SQLite); keys other than
 *   [A-Za-z_][A-Za-z0-9_]* are left to the exact check.
 */
import type { Knex } from 'knex';
import type { JsonObject, JsonValue } from '../../protocol/index.js';
import type { Dialect } from './dialect.js';

/** Keys that may sit in a JSON path literal as they are: nothing to quote, nothing to escape. */
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

type Condition = readonly [sql: string, bindings: readonly Knex.Value[]];

type JsonKind = 'null' | 'true' | 'false' | 'number' | 'string' | 'array' | 'object';

function kindOf(value: JsonValue): JsonKind {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'string') return 'string';
  return Array.isArray(value) ? 'array' : 'object';
}

/** SQLite's json_type names, and MariaDB's JSON_TYPE names, of each kind of value. */
const SQLITE_TYPES: Readonly<Record<JsonKind, readonly string[]>> = {
  null: ['null'],
  true: ['true'],
  false: ['false'],
  number: ['integer', 'real'],
  string: ['text'],
  array: ['array'],
  object: ['object'],
};
const MARIADB_TYPES: Readonly<Record<JsonKind, readonly string[]>> = {
  null: ['NULL'],
  true: ['BOOLEAN'],
  false: ['BOOLEAN'],
  number: ['INTEGER', 'DOUBLE'],
  string: ['STRING'],
  array: ['ARRAY'],
  object: ['OBJECT'],
};

const placeholders = (values: readonly unknown[]): string => values.map(() => '?').join(', ');

/**
 * The scalar a key's value must equal, when the prefilter can compare it without a false negative: strings
 * (byte for byte), safe integers (an integer JSON text within ±2^53 reads the same in the database and in
 * JavaScript; 1.0 = 1 only lets more through) and booleans (SQLite reads true as 1). Other numbers go by type.
 */
function comparable(value: JsonValue): string | number | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return null;
}

function sqliteCondition(key: string, value: JsonValue): Condition {
  const path = `'$.${key}'`;
  const types = SQLITE_TYPES[kindOf(value)];
  const typed = `json_type(extra_info, ${path}) IN (${placeholders(types)})`;
  const scalar = comparable(value);
  return scalar === null ? [typed, types] : [`json_extract(extra_info, ${path}) = ? AND ${typed}`, [scalar, ...types]];
}

function mariadbCondition(key: string, value: JsonValue): Condition {
  const path = `'$.${key}'`;
  const types = MARIADB_TYPES[kindOf(value)];
  const typed = `JSON_TYPE(JSON_EXTRACT(extra_info, ${path})) IN (${placeholders(types)})`;
  // JSON_VALUE reads a number as its text (compared with a number, as a number); a boolean as 1 or 0 on
  // MariaDB but as 'true' on MySQL, so booleans go by type alone.
  const scalar = typeof value === 'boolean' ? null : comparable(value);
  return scalar === null ? [typed, types] : [`JSON_VALUE(extra_info, ${path}) = ? AND ${typed}`, [scalar, ...types]];
}

/** Adds the prefilter for `wanted` to a query of the users table. */
export function whereHolds(query: Knex.QueryBuilder, dialect: Dialect, wanted: JsonObject): Knex.QueryBuilder {
  if (dialect === 'pg') return query.whereRaw('extra_info::jsonb @> ?::jsonb', [JSON.stringify(wanted)]);
  const condition = dialect === 'sqlite' ? sqliteCondition : mariadbCondition;
  let filtered = query.whereNotNull('extra_info');
  for (const [key, value] of Object.entries(wanted)) {
    if (!PLAIN_KEY.test(key)) continue;
    const [sql, bindings] = condition(key, value);
    filtered = filtered.whereRaw(sql, bindings);
  }
  return filtered;
}
