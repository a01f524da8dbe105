/**
 * The one base of the store's models (docs/design.md#database-urls-times-and-models;
 * docs/design.md#times-and-row-types-by-dialect). A model holds a row as the repos' records carry it, whatever the
 * database returned: times as epoch milliseconds (like the injected clock), booleans, integers as numbers, JSON columns
 * parsed; and writes each value as its dialect stores it (times: integer ms / `timestamptz(3)` / `DATETIME(3)` in UTC;
 * JSON: text everywhere). A model class is bound to one store's knex by `bindModels` (bind.ts), which also sets
 * the dialect: several stores (tests, the primary beside its workers) may be open in one process.
 */
import { Model } from 'objection';
import type { Pojo } from 'objection';
import { boolFromDb, intFromDb, optionalTimeFromDb, timeToDb } from '../dialect.js';
import type { Dialect } from '../dialect.js';

/** A value written to a JSON column as it is (not a builder such as Objection's `raw` or `ref`). */
function isJson(value: unknown): boolean {
  if (typeof value === 'string' || Array.isArray(value)) return true;
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

export abstract class StoredModel extends Model {
  /** The dialect times are written for; set on the class bound to a store's knex. */
  static dialect: Dialect = 'sqlite';
  /** Columns holding a time: epoch ms in the model, the dialect's representation in the database. */
  static timeColumns: readonly string[] = [];
  /** Columns holding a boolean (SQLite and MariaDB/MySQL return 0/1). */
  static boolColumns: readonly string[] = [];
  /** Columns holding an integer (kept numbers whatever the driver returns). */
  static intColumns: readonly string[] = [];
  /** Columns holding JSON: parsed in the model, text in the database (compared as text by compare-and-swap). */
  static jsonColumns: readonly string[] = [];

  /** A time as this dialect stores it, for the statements written in SQL (counters, compare-and-swap, hot). */
  static dbTime(ms: number): number | Date {
    return timeToDb(this.dialect, ms);
  }

  /**
   * A row as the model holds it, without a model instance: for the hot reads, where instantiating two
   * models per request cost more than the statement itself. Columns the row lacks stay absent.
   */
  static parseRow(row: Pojo): Pojo {
    const parsed: Pojo = { ...row };
    for (const column of this.jsonColumns) {
      const value: unknown = parsed[column];
      if (typeof value === 'string') parsed[column] = JSON.parse(value) as unknown;
    }
    for (const column of this.timeColumns) {
      if (column in parsed) parsed[column] = optionalTimeFromDb(parsed[column]);
    }
    for (const column of this.boolColumns) {
      if (parsed[column] !== undefined) parsed[column] = boolFromDb(parsed[column]);
    }
    for (const column of this.intColumns) {
      const value: unknown = parsed[column];
      if (value !== undefined && value !== null) parsed[column] = intFromDb(value);
    }
    return parsed;
  }

  override $parseDatabaseJson(json: Pojo): Pojo {
    return (this.constructor as typeof StoredModel).parseRow(super.$parseDatabaseJson(json));
  }

  override $formatDatabaseJson(json: Pojo): Pojo {
    const formatted = super.$formatDatabaseJson(json);
    const model = this.constructor as typeof StoredModel;
    for (const column of model.timeColumns) {
      const value: unknown = formatted[column];
      if (typeof value === 'number') formatted[column] = model.dbTime(value);
    }
    for (const column of model.jsonColumns) {
      const value: unknown = formatted[column];
      if (isJson(value)) formatted[column] = JSON.stringify(value);
    }
    return formatted;
  }
}
