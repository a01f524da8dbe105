/**
 * A refresh token of a no-session key (table `refresh_tokens`), stored only as its SHA-256 hash.
 * `rotated_at` is set when the token is exchanged; the row stays until it expires, so presenting it
 * again can be told apart from a token never issued (docs/design.md#api-keys-and-refresh-tokens).
 */
import { StoredModel } from './stored-model.js';

export class RefreshTokenModel extends StoredModel {
  static override get tableName(): string {
    return 'refresh_tokens';
  }
  static override get idColumn(): string {
    return 'token_hash';
  }
  static override timeColumns = ['issued', 'not_valid_before', 'expires', 'rotated_at'];
  static override intColumns = ['user_id', 'credential_generation'];

  declare token_hash: string;
  declare family_id: string;
  declare apikey_hash: string;
  declare user_id: number;
  declare credential_generation: number;
  declare issued: number;
  declare not_valid_before: number;
  declare expires: number;
  declare rotated_at: number | null;
}
