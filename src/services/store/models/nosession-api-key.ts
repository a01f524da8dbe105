/**
 * A no-session API key (table `apikeys_nosession`). Every key descending from one
 * apikey-new-nosession by refreshes shares its `family_id`, so reuse of a rotated refresh token can
 * revoke the whole family (docs/design.md#api-keys-and-refresh-tokens).
 */
import { IssuedKeyModel } from './api-key.js';

export class NoSessionApiKeyModel extends IssuedKeyModel {
  static override get tableName(): string {
    return 'apikeys_nosession';
  }

  declare family_id: string;
}
