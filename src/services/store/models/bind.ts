/**
 * The store's model classes bound to one store's knex (Objection's `bindKnex` makes a subclass per
 * knex, so several stores can be open in one process), with the dialect they write for: the one
 * binding every repo takes its models from.
 */
import type { Knex } from 'knex';
import type { Dialect } from '../dialect.js';
import { ApiKeyModel } from './api-key.js';
import { NoSessionApiKeyModel } from './nosession-api-key.js';
import { RefreshTokenModel } from './refresh-token.js';
import { SessionModel } from './session.js';
import type { StoredModel } from './stored-model.js';
import { UserModel } from './user.js';

export interface Models {
  readonly User: typeof UserModel;
  readonly Session: typeof SessionModel;
  readonly ApiKey: typeof ApiKeyModel;
  readonly NoSessionApiKey: typeof NoSessionApiKeyModel;
  readonly RefreshToken: typeof RefreshTokenModel;
}

export function bindModels(knex: Knex, dialect: Dialect): Models {
  const bind = <M extends typeof StoredModel>(model: M): M => {
    const bound = model.bindKnex(knex);
    bound.dialect = dialect;
    return bound;
  };
  return {
    User: bind(UserModel),
    Session: bind(SessionModel),
    ApiKey: bind(ApiKeyModel),
    NoSessionApiKey: bind(NoSessionApiKeyModel),
    RefreshToken: bind(RefreshTokenModel),
  };
}
