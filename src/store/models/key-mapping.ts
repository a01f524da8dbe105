/**
 * The per-dialect mapping of the key aggregates' models (docs/design.md#database-urls-times-and-models): times are
 * milliseconds in the models and `integer ms` / `timestamptz(3)` / `DATETIME(3)` in the databases; `subject` is a
 * string or a list of strings in the models and JSON text in the databases.
 */
import type { Pojo } from 'objection';
import type { Dialect } from '../dialect.js';
import { jsonFromDb, jsonToDb, optionalTimeFromDb, timeToDb } from '../dialect.js';

/** Times and JSON from a model's properties to the columns of `dialect`. */
export function toColumns(json: Pojo, dialect: Dialect, times: readonly string[]): Pojo {
  const out: Pojo = { ...json };
  for (const name of times) {
    const value: unknown = out[name];
    if (typeof value === 'number') out[name] = timeToDb(dialect, value);
  }
  if (out['subject'] !== undefined) out['subject'] = jsonToDb(out['subject']);
  return out;
}

/** Columns as any of the three databases returns them, to the models' properties. */
export function fromColumns(json: Pojo, times: readonly string[]): Pojo {
  const out: Pojo = { ...json };
  for (const name of times) if (name in out) out[name] = optionalTimeFromDb(out[name]);
  if (typeof out['subject'] === 'string') out['subject'] = jsonFromDb<unknown>(out['subject'], '');
  if (out['apiversion'] !== undefined) out['apiversion'] = Number(out['apiversion']);
  if (out['user_id'] !== undefined) out['user_id'] = Number(out['user_id']);
  return out;
}
