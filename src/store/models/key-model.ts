/**
 * What the key aggregates' models share: the per-dialect mapping of their times and JSON columns
 * (key-mapping.ts), and the fields both kinds of API key carry.
 */
import { Model } from 'objection';
import type { Pojo } from 'objection';
import type { Dialect } from '../dialect.js';
import { fromColumns, toColumns } from './key-mapping.js';

export abstract class KeyModel extends Model {
  /** Set on the class bound to one database (see api-keys.ts), read by the time mapping. */
  static dialect: Dialect = 'sqlite';
  /** The columns holding times: milliseconds in the model. */
  static times: readonly string[] = ['issued', 'not_valid_before', 'expires'];

  override $formatDatabaseJson(json: Pojo): Pojo {
    const model = this.constructor as typeof KeyModel;
    return toColumns(super.$formatDatabaseJson(json), model.dialect, model.times);
  }

  override $parseDatabaseJson(json: Pojo): Pojo {
    return super.$parseDatabaseJson(fromColumns(json, (this.constructor as typeof KeyModel).times));
  }
}

/** The fields of an issued API key, session-tied or not: the key dict's record. */
export abstract class IssuedKeyModel extends KeyModel {
  static override get idColumn(): string {
    return 'tkn_hash';
  }

  declare tkn_hash: string;
  declare user_id: number;
  declare user_role: string;
  declare issuer: string;
  declare audience: string;
  declare subject: string | string[];
  declare apiversion: number;
  declare ip_address: string;
  declare issued: number;
  declare not_valid_before: number;
  declare expires: number;
}
