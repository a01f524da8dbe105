declare module 'knex/lib/dialects/better-sqlite3/index.js' {
  import type { Knex } from 'knex';
  const Client_BetterSQLite3: typeof Knex.Client;
  export default Client_BetterSQLite3;
}
