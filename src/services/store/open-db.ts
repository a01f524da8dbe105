/** Opens one database by its dialect (the store's repos are built on it in index.ts). */
import { SERVING_LIMITS } from './db.js';
import type { Db, DbLimits } from './db.js';
import { openMysql } from './mysql.js';
import { openPg } from './pg.js';
import { openSqlite } from './sqlite.js';
import type { DatabaseTarget } from './url.js';

export function openDb(target: DatabaseTarget, limits: DbLimits = SERVING_LIMITS): Db {
  switch (target.dialect) {
    case 'sqlite':
      return openSqlite(target);
    case 'pg':
      return openPg(target, limits);
    case 'mysql':
      return openMysql(target, limits);
  }
}
