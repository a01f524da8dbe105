/**
 * The knex of an open store, for tests and benchmarks that write or inspect rows no action reaches
 * (test/helpers/sql.ts). Nothing in src/ outside the store imports this file: the service talks to
 * the database only through the store's repos.
 */
import type { Knex } from 'knex';

const knexes = new WeakMap<object, Knex>();

export function rememberKnex(store: object, knex: Knex): void {
  knexes.set(store, knex);
}

export function knexOf(store: object): Knex {
  const knex = knexes.get(store);
  if (knex === undefined) throw new Error('not a store opened by openStore');
  return knex;
}
