declare module 'knex/lib/dialects/better-sqlite3/index.js' {
  import type { Knex } from 'knex';
  const Client_BetterSQLite3: typeof Knex.Client;
  export default Client_BetterSQLite3;
}

declare module 'knex/lib/dialects/sqlite3/execution/sqlite-transaction.js' {
  import type { Knex } from 'knex';
  class Transaction_Sqlite {
    constructor(client: Knex.Client, ...rest: unknown[]);
    begin(connection: unknown): Promise<unknown>;
    query(connection: unknown, sql: string): Promise<unknown>;
  }
  export default Transaction_Sqlite;
}
