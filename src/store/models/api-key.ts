/** A session-tied API key (table `apikeys`): dies with its session (foreign key, ON DELETE CASCADE). */
import { IssuedKeyModel } from './key-model.js';

export class ApiKeyModel extends IssuedKeyModel {
  static override get tableName(): string {
    return 'apikeys';
  }

  declare session_hash: string;
  declare user_agent: string;
}
