/**
 * What every model of the store shares: the per-dialect mapping of times and booleans
 * (docs/design.md#database-urls-times-and-models; docs/design.md#times-and-row-types-by-dialect), so that repos see JS
 * Dates, booleans and numbers whatever the database returned. JSON columns go through Objection's own `jsonAttributes`
 * (stored as text everywhere). A model class is bound to one store's knex by `bindModels` (bind.ts), which also sets
 * the dialect the times are written for: several stores (tests, the primary beside its workers) may be open in one
 * process.
 */
import { Model } from 'objection';
import type { Pojo } from 'objection';
import { boolFromDb, intFromDb, timeFromDb, timeToDb } from '../dialect.js';
import type { Dialect } from '../dialect.js';

export abstract class StoredModel extends Model {
  /** The dialect times are written for; set on the class bound to a store's knex. */
  static dialect: Dialect = 'sqlite';
  /** Columns holding a time: Dates in the model, the dialect's representation in the database. */
  static timeColumns: readonly string[] = [];
  /** Columns holding a boolean (SQLite and MariaDB/MySQL return 0/1). */
  static boolColumns: readonly string[] = [];
  /** Columns holding an integer (kept numbers whatever the driver returns). */
  static intColumns: readonly string[] = [];

  /** A time as this dialect stores it, for the few statements written in SQL (counters, compare-and-swap). */
  static dbTime(time: Date | number): number | Date {
    return timeToDb(this.dialect, typeof time === 'number' ? time : time.getTime());
  }

  override $parseDatabaseJson(json: Pojo): Pojo {
    return (this.constructor as typeof StoredModel).convertColumns(super.$parseDatabaseJson(json));
  }

  /**
   * What `$parseDatabaseJson` does, on a plain row and without making a model instance: for the hot
   * reads, where instantiating two models per request cost more than the statement itself.
   */
  static parseRow(row: Pojo): Pojo {
    const parsed: Pojo = { ...row };
    for (const column of this.jsonAttributes) {
      const value: unknown = parsed[column];
      if (typeof value === 'string') parsed[column] = JSON.parse(value) as unknown;
    }
    return this.convertColumns(parsed);
  }

  /** Times to Dates, booleans and integers to numbers, in place. */
  static convertColumns(parsed: Pojo): Pojo {
    for (const column of this.timeColumns) {
      const value: unknown = parsed[column];
      if (value !== undefined) parsed[column] = value === null ? null : new Date(timeFromDb(value));
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

  override $formatDatabaseJson(json: Pojo): Pojo {
    const formatted = super.$formatDatabaseJson(json);
    const model = this.constructor as typeof StoredModel;
    for (const column of model.timeColumns) {
      const value: unknown = formatted[column];
      if (value instanceof Date) formatted[column] = model.dbTime(value);
    }
    return formatted;
  }
}

/** A stored time as epoch milliseconds (records carry numbers, like the injected clock). */
export function msOf(time: Date): number {
  return time.getTime();
}

export function optionalMsOf(time: Date | null | undefined): number | null {
  return time === null || time === undefined ? null : time.getTime();
}
