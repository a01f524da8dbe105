/**
 * The model classes bound to one store's knex (Objection's `bindKnex` makes a subclass per knex, so
 * several stores can be open in one process), with the dialect their times are written for.
 */
import type { Knex } from 'knex';
import type { Dialect } from '../dialect.js';
import { SessionModel } from './session.js';
import { UserModel } from './user.js';

export interface Models {
  readonly User: typeof UserModel;
  readonly Session: typeof SessionModel;
}

export function bindModels(knex: Knex, dialect: Dialect): Models {
  const User = UserModel.bindKnex(knex);
  User.dialect = dialect;
  const Session = SessionModel.bindKnex(knex);
  Session.dialect = dialect;
  return { User, Session };
}
