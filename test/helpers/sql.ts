/**
 * Direct SQL on a store's database, for tests (and benchmarks) that write or inspect rows no action
 * reaches. The service itself never gets knex: only the store's repos talk to the database.
 */
import type { Knex } from 'knex';
import { knexOf } from '../../src/services/store/direct-sql.js';
import type { Store } from '../../src/services/store/index.js';

export function sqlOf(store: Store): Knex {
  return knexOf(store);
}
