/** The API key models: the fields both kinds carry, and the session-tied key (table `apikeys`). */
import { StoredModel } from './stored-model.js';

/** The fields of an issued API key, session-tied or not: the key dict's record. */
export abstract class IssuedKeyModel extends StoredModel {
  static override get idColumn(): string {
    return 'tkn_hash';
  }
  static override timeColumns = ['issued', 'not_valid_before', 'expires'];
  static override intColumns = ['user_id', 'apiversion', 'credential_generation'];
  /** A string or a list of strings. */
  static override jsonColumns = ['subject'];

  declare tkn_hash: string;
  declare credential_generation: number;
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

/** A session-tied API key: dies with its session (foreign key, ON DELETE CASCADE). */
export class ApiKeyModel extends IssuedKeyModel {
  static override get tableName(): string {
    return 'apikeys';
  }

  declare session_hash: string;
  declare user_agent: string;
}
