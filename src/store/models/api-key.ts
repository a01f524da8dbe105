/** A session-tied API key (table `apikeys`): dies with its session (foreign key, ON DELETE CASCADE). */
import { Model } from 'objection';
import type { Pojo } from 'objection';
import type { Dialect } from '../dialect.js';
import { fromColumns, toColumns } from './key-mapping.js';

const TIMES = ['issued', 'not_valid_before', 'expires'] as const;

export class ApiKeyModel extends Model {
  /** Set on the class bound to one database (see api-keys.ts), read by the time mapping. */
  static dialect: Dialect = 'sqlite';
  static override get tableName(): string {
    return 'apikeys';
  }
  static override get idColumn(): string {
    return 'tkn_hash';
  }

  declare tkn_hash: string;
  declare session_hash: string;
  declare user_id: number;
  declare user_role: string;
  declare issuer: string;
  declare audience: string;
  declare subject: string | string[];
  declare apiversion: number;
  declare ip_address: string;
  declare user_agent: string;
  declare issued: number;
  declare not_valid_before: number;
  declare expires: number;

  override $formatDatabaseJson(json: Pojo): Pojo {
    return toColumns(super.$formatDatabaseJson(json), (this.constructor as typeof ApiKeyModel).dialect, TIMES);
  }

  override $parseDatabaseJson(json: Pojo): Pojo {
    return super.$parseDatabaseJson(fromColumns(json, TIMES));
  }
}
