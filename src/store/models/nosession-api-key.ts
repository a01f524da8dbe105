/**
 * A no-session API key (table `apikeys_nosession`). Every key descending from one
 * apikey-new-nosession by refreshes shares its `family_id`, so reuse of a rotated refresh token can
 * revoke the whole family (DESIGN decision 18).
 */
import { Model } from 'objection';
import type { Pojo } from 'objection';
import type { Dialect } from '../dialect.js';
import { fromColumns, toColumns } from './key-mapping.js';

const TIMES = ['issued', 'not_valid_before', 'expires'] as const;

export class NoSessionApiKeyModel extends Model {
  /** Set on the class bound to one database (see api-keys.ts), read by the time mapping. */
  static dialect: Dialect = 'sqlite';
  static override get tableName(): string {
    return 'apikeys_nosession';
  }
  static override get idColumn(): string {
    return 'tkn_hash';
  }

  declare tkn_hash: string;
  declare family_id: string;
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

  override $formatDatabaseJson(json: Pojo): Pojo {
    return toColumns(super.$formatDatabaseJson(json), (this.constructor as typeof NoSessionApiKeyModel).dialect, TIMES);
  }

  override $parseDatabaseJson(json: Pojo): Pojo {
    return super.$parseDatabaseJson(fromColumns(json, TIMES));
  }
}
