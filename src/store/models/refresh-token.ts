/**
 * A refresh token of a no-session key (table `refresh_tokens`), stored only as its SHA-256 hash.
 * `rotated_at` is set when the token is exchanged; the row stays until it expires, so presenting it
 * again can be told apart from a token never issued (DESIGN decision 18).
 */
import { Model } from 'objection';
import type { Pojo } from 'objection';
import type { Dialect } from '../dialect.js';
import { fromColumns, toColumns } from './key-mapping.js';

const TIMES = ['issued', 'not_valid_before', 'expires', 'rotated_at'] as const;

export class RefreshTokenModel extends Model {
  /** Set on the class bound to one database (see api-keys.ts), read by the time mapping. */
  static dialect: Dialect = 'sqlite';
  static override get tableName(): string {
    return 'refresh_tokens';
  }
  static override get idColumn(): string {
    return 'token_hash';
  }

  declare token_hash: string;
  declare family_id: string;
  declare apikey_hash: string;
  declare user_id: number;
  declare issued: number;
  declare not_valid_before: number;
  declare expires: number;
  declare rotated_at: number | null;

  override $formatDatabaseJson(json: Pojo): Pojo {
    return toColumns(super.$formatDatabaseJson(json), (this.constructor as typeof RefreshTokenModel).dialect, TIMES);
  }

  override $parseDatabaseJson(json: Pojo): Pojo {
    return super.$parseDatabaseJson(fromColumns(json, TIMES));
  }
}
