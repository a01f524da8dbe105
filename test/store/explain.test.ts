/**
 * The statements that a large database makes slow read through an index, on each database
 * (docs/design.md#a-million-users). Each statement is captured as the store runs it (knex's query event) and
 * explained in a way that does not depend on the tables' sizes: PostgreSQL with every path but index scans, sorts and
 * nested loops priced out (so a scan remains only where no index can serve), MariaDB/MySQL by the indexes it could
 * use (`possible_keys`), SQLite by its plan (SEARCH through an index, not SCAN or an automatic index).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { randomSource } from '../../src/domain/ports.js';
import { purgeExpired } from '../../src/services/store/cleanup.js';
import { openStore } from '../../src/services/store/index.js';
import type { Store } from '../../src/services/store/index.js';
import { MAINTENANCE_LIMITS } from '../../src/services/store/db.js';
import { openDb } from '../../src/services/store/open-db.js';
import { seedFixedAccounts } from '../../src/services/store/seed.js';
import type { DatabaseTarget } from '../../src/services/store/url.js';
import { FrozenClock } from '../helpers/clock.js';
import { forEachDatabase } from '../helpers/databases.js';
import { captured, indexedBy } from '../helpers/explain.js';
import { testHasher } from '../helpers/server.js';
import { sqlOf } from '../helpers/sql.js';

forEachDatabase((db) => {
  const stores: Store[] = [];
  after(async () => {
    for (const store of stores) await store.close();
  });
  const clock = new FrozenClock(Date.UTC(2026, 10, 27, 9, 0, 0));
  const ready = async (target?: DatabaseTarget): Promise<Store> => {
    const store = openStore(target ?? (await db.fresh()), MAINTENANCE_LIMITS);
    stores.push(store);
    await store.migrate();
    await seedFixedAccounts(
      store.users,
      { clock, random: randomSource, hasher: testHasher },
      { email: 'admin@example.org', password: 'pw-pw-pw-pw-pw' },
    );
    return store;
  };

  describe('statements that must read through an index', () => {
    it('user-lookup-match by a column finds the users of a value (or of null) through an index of that column', async () => {
      const store = await ready();
      const knex = sqlOf(store);
      const now = clock.now();
      const matches: Array<
        [Exclude<Parameters<Store['users']['matchColumn']>[0], 'user_id'>, string | number | boolean | null]
      > = [
        ['full_name', 'Somebody'],
        ['full_name', null],
        ['user_role', 'authenticated'],
        ['is_active', true],
        ['email', 'a@example.org'],
        ['system_id', 'x'],
        ['created_on', now],
        ['last_login_try', now],
        ['last_login_try', null],
        ['last_login_success', now],
      ];
      for (const [column, value] of matches) {
        const [statement, ...more] = await captured(knex, () => store.users.matchColumn(column, value, 0, 101));
        assert.ok(statement !== undefined && more.length === 0);
        const { ok, plan } = await indexedBy(knex, db.kind, statement, column);
        assert.ok(ok, `${column} = ${String(value)}: ${plan}`);
      }
    });

    it("user-lookup-match by extra_info reads through the operator's index of the key (SQLite, PostgreSQL)", async (t) => {
      if (db.kind === 'mysql') {
        // MariaDB does not match an expression with an indexed generated column: the search walks the primary key,
        // bounded by the statement timeout (docs/design.md#user-lookup-match-by-extra_info).
        t.skip('no index serves a JSON path on MariaDB');
        return;
      }
      const store = await ready();
      const knex = sqlOf(store);
      // The index docs/operations/databases.md tells an operator to add.
      await knex.raw(
        db.kind === 'sqlite'
          ? "CREATE INDEX users_extra_info_plan ON users (json_extract(extra_info, '$.plan'))"
          : 'CREATE INDEX users_extra_info_gin ON users USING gin ((extra_info::jsonb) jsonb_path_ops)',
      );
      if (db.kind === 'pg') {
        // PostgreSQL plans by its statistics: with an empty table the primary key is cheapest. 2,000 users, one "pro".
        await knex.raw(
          `INSERT INTO users (system_id, email, password, is_active, user_role, extra_info, created_on, last_updated)
           SELECT 'sys-' || n, 'u' || n || '@example.org', 'x', true, 'authenticated',
                  CASE WHEN n = 1000 THEN '{"plan":"pro"}' ELSE '{"plan":"free"}' END, now(), now()
           FROM generate_series(1, 2000) AS n`,
        );
        await knex.raw('ANALYZE users');
      }
      const statements = await captured(knex, async () => {
        for await (const batch of store.users.extraInfoCandidates({ plan: 'pro' }, 0, 101)) if (batch.length > 0) break;
      });
      // SQLite reads the last user id first (its windows end there).
      const [statement, ...more] = statements.filter((s) => !/max\(/.test(s.sql));
      assert.ok(statement !== undefined && more.length === 0, statements.map((s) => s.sql).join('\n'));
      const { plan } = await indexedBy(knex, db.kind, statement, 'user_id', { bitmaps: true });
      assert.match(
        plan,
        db.kind === 'sqlite' ? /SEARCH users USING INDEX users_extra_info_plan/ : /users_extra_info_gin/,
      );
    });

    it('every batch of the purge finds its rows through the expires index, and a kept key its refresh tokens by key', async () => {
      // The purge itself, on a connection of the test's: the store runs SQLite's on a thread of its own.
      const target = await db.fresh();
      const store = await ready(target);
      const knex = sqlOf(store);
      const own = openDb(target, MAINTENANCE_LIMITS);
      const statements = await captured(own.knex, () => purgeExpired(own, clock.now())).finally(() => own.close());
      const deletes = statements.filter((s) => /^delete/i.test(s.sql));
      assert.equal(deletes.length, 7);
      for (const statement of deletes) {
        const { ok, plan } = await indexedBy(knex, db.kind, statement, 'expires');
        assert.ok(ok, `${statement.sql}: ${plan}`);
      }
      const kept = deletes.find((s) => s.sql.includes('apikeys_nosession'));
      assert.ok(kept !== undefined);
      const { ok, plan } = await indexedBy(knex, db.kind, kept, 'apikey_hash');
      assert.ok(ok, plan);
    });
  });
});
