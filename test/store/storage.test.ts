/**
 * The storage suite: the same expectations on SQLite, PostgreSQL and MariaDB/MySQL (DESIGN decision 22,
 * traps S1–S9). Each database is a fresh one of this file, dropped afterwards.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { randomSource } from '../../src/domain/random.js';
import { atomicUpdate } from '../../src/store/atomic.js';
import { withCleanupLock } from '../../src/store/cleanup.js';
import { timeToDb } from '../../src/store/dialect.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { MAINTENANCE_LIMITS } from '../../src/store/db.js';
import { seedFixedAccounts } from '../../src/store/seed.js';
import type { DatabaseTarget } from '../../src/store/url.js';
import { FrozenClock } from '../helpers/clock.js';
import { forEachDatabase } from '../helpers/databases.js';
import { testHasher } from '../helpers/server.js';

const HOUR = 3_600_000;

forEachDatabase((db) => {
  const stores: Store[] = [];
  after(async () => {
    for (const store of stores) await store.close();
  });
  const open = (target: DatabaseTarget, limits = MAINTENANCE_LIMITS): Store => {
    const store = openStore(target, limits);
    stores.push(store);
    return store;
  };
  const clock = new FrozenClock(Date.UTC(2026, 10, 22, 1, 41, 29, 123));
  const setUp = async (store: Store, email = 'admin@example.org') => {
    await store.migrate();
    return seedFixedAccounts(
      store.users,
      { clock, random: randomSource, hasher: testHasher },
      { email, password: 'pw-pw-pw-pw-pw' },
    );
  };
  /** A migrated, seeded database of its own. */
  const ready = async (): Promise<Store> => {
    const store = open(await db.fresh());
    await setUp(store);
    return store;
  };
  const addUser = async (store: Store, email: string, extra: Record<string, unknown> = {}): Promise<number> => {
    const t = timeToDb(store.dialect, clock.now());
    await store.knex('users').insert({
      system_id: `sys-${email}`,
      email,
      password: 'x',
      email_verified: false,
      is_active: false,
      user_role: 'locked',
      created_on: t,
      last_updated: t,
      ...extra,
    });
    const row: { user_id: unknown } = await store.knex('users').where('email', email).first('user_id');
    return Number(row.user_id);
  };

  describe('migrations and the fixed accounts', () => {
    it('two instances starting together both succeed, and exactly one creates the superuser', async () => {
      const target = await db.fresh();
      const [a, b] = [open(target), open(target)];
      const results = await Promise.all([setUp(a, 'one@example.org'), setUp(b, 'two@example.org')]);
      assert.equal(results.filter((r) => r.created !== null).length, 1);
      const rows = (await a.knex('users').select('user_id', 'user_role').orderBy('user_id')) as Array<{
        user_id: unknown;
        user_role: string;
      }>;
      assert.deepEqual(
        rows.map((r) => [Number(r.user_id), r.user_role]),
        [
          [1, 'superuser'],
          [2, 'anonymous'],
          [3, 'locked'],
        ],
      );
    });

    it('gives the first user created by the database itself the id 4 (the sequence is past the fixed ids)', async () => {
      const store = await ready();
      assert.equal(await addUser(store, 'four@example.org'), 4);
    });

    it('a second start changes nothing and creates nobody', async () => {
      const target = await db.fresh();
      const first = open(target);
      await setUp(first);
      const before = await first.knex('users').select('*').orderBy('user_id');
      const second = open(target);
      const again = await setUp(second, 'other@example.org');
      assert.equal(again.created, null);
      assert.deepEqual(await second.knex('users').select('*').orderBy('user_id'), before);
      assert.equal(await addUser(second, 'next@example.org'), 4);
    });
  });

  describe('byte-exact comparison of emails, system ids and token hashes', () => {
    it('keeps addresses differing only by case, accent or trailing space apart', async () => {
      const store = await ready();
      const emails = ['jose@x.com', 'JOSE@x.com', 'josé@x.com', 'jose@x.com '];
      for (const email of emails) await addUser(store, email);
      for (const email of emails) {
        const rows: Array<{ email: string }> = await store.knex('users').where('email', email).select('email');
        assert.deepEqual(
          rows.map((r) => r.email),
          [email],
          JSON.stringify(email),
        );
      }
    });

    it('finds a session only by its exact hash', async () => {
      const store = await ready();
      const hash = 'ab'.repeat(32);
      const now = clock.now();
      assert.ok(
        await store.sessions.create({
          tokenHash: hash,
          userId: 1,
          ipAddress: '192.0.2.1',
          userAgent: 'ua',
          created: now,
          expires: now + HOUR,
          extraInfo: {},
        }),
      );
      assert.notEqual(await store.sessions.findWithUser(hash, now), null);
      for (const other of [hash.toUpperCase(), `${hash} `, hash.slice(0, 63)]) {
        assert.equal(await store.sessions.findWithUser(other, now), null, other);
      }
    });
  });

  describe('times and JSON', () => {
    it('returns times to the millisecond, as UTC instants, whatever the process time zone', async () => {
      const store = await ready();
      const at = Date.UTC(2038, 0, 19, 3, 14, 8, 601); // past MySQL's TIMESTAMP range, odd milliseconds
      const now = clock.now();
      await store.sessions.create({
        tokenHash: 'cd'.repeat(32),
        userId: 2,
        ipAddress: '::1',
        userAgent: 'ua',
        created: now,
        expires: at,
        extraInfo: {},
      });
      const found = await store.sessions.findWithUser('cd'.repeat(32), now);
      assert.equal(found?.session.expires, at);
      assert.equal(found?.session.created, now);
      assert.equal(found?.user.createdOn, clock.now());
      assert.equal((await store.sessions.find('cd'.repeat(32), now))?.expires, at);
      assert.equal(await store.sessions.find('cd'.repeat(32), at), null, 'expired exactly at its expiry');
    });

    it('reads back JSON exactly as written', async () => {
      const store = await ready();
      const extraInfo = {
        nested: { list: [1, 2.5, 'three', null, true], deep: { deeper: { deepest: ['é', '😀', '\\"'] } } },
        'key with spaces': 'Ünïcödé',
        empty: {},
        arr: [],
      };
      const now = clock.now();
      await store.sessions.create({
        tokenHash: 'ef'.repeat(32),
        userId: 1,
        ipAddress: '::1',
        userAgent: 'ua',
        created: now,
        expires: now + HOUR,
        extraInfo,
      });
      assert.deepEqual((await store.sessions.find('ef'.repeat(32), now))?.extraInfo, extraInfo);
      assert.deepEqual((await store.sessions.findWithUser('ef'.repeat(32), now))?.session.extraInfo, extraInfo);
      const swapped = await store.sessions.swapExtraInfo('ef'.repeat(32), extraInfo, { a: 'B' }, now);
      assert.equal(swapped, true);
      // The compare-and-swap compares the stored text byte for byte: a case change is a different value.
      assert.equal(await store.sessions.swapExtraInfo('ef'.repeat(32), { a: 'b' }, { a: 'c' }, now), false);
    });
  });

  describe('atomic updates', () => {
    const increment = (store: Store, userId: number) =>
      atomicUpdate(store.db, {
        table: 'users',
        where: { user_id: userId },
        column: 'failed_login_tries',
        next: store.knex.raw('?? + 1', ['failed_login_tries']),
        set: { last_login_try: timeToDb(store.dialect, clock.now()) },
      });

    it('20 concurrent increments from two connection pools count 20, each seeing its own value', async () => {
      const target = await db.fresh();
      const [a, b] = [open(target), open(target)];
      await setUp(a);
      const seen = await Promise.all(Array.from({ length: 20 }, (_, i) => increment(i % 2 === 0 ? a : b, 1)));
      assert.deepEqual(
        [...seen].sort((x, y) => (x ?? 0) - (y ?? 0)),
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
      const row: { failed_login_tries: unknown } = await a
        .knex('users')
        .where('user_id', 1)
        .first('failed_login_tries');
      assert.equal(Number(row.failed_login_tries), 20);
    });

    it('returns null when no row matches', async () => {
      const store = await ready();
      assert.equal(await increment(store, 999_999), null);
    });

    it('lets the other assignments read the old value of the counter on every database', async () => {
      const store = await ready();
      const lockAt = timeToDb(store.dialect, clock.now() + HOUR);
      // "Lock when this failure makes the count exceed 2", written over the OLD count (trap S2).
      const fail = () =>
        atomicUpdate(store.db, {
          table: 'users',
          where: { user_id: 2 },
          column: 'failed_login_tries',
          next: store.knex.raw('?? + 1', ['failed_login_tries']),
          set: {
            locked_until: store.knex.raw('CASE WHEN ?? + 1 > 2 THEN ? ELSE ?? END', [
              'failed_login_tries',
              lockAt,
              'locked_until',
            ]),
          },
        });
      const lockedUntil = async (): Promise<unknown> => {
        const row: { locked_until: unknown } = await store.knex('users').where('user_id', 2).first('locked_until');
        return row.locked_until;
      };
      assert.equal(await fail(), 1);
      assert.equal(await fail(), 2);
      assert.equal(await lockedUntil(), null);
      assert.equal(await fail(), 3);
      assert.notEqual(await lockedUntil(), null);
    });
  });

  describe('purge of expired rows', () => {
    it('deletes what expired by the injected clock and keeps the rest', async () => {
      const store = await ready();
      const now = clock.now();
      const session = (hash: string, expires: number) =>
        store.sessions.create({
          tokenHash: hash,
          userId: 1,
          ipAddress: '::1',
          userAgent: 'ua',
          created: now - 2 * HOUR,
          expires,
          extraInfo: {},
        });
      await session('01'.repeat(32), now - HOUR);
      await session('02'.repeat(32), now);
      await session('03'.repeat(32), now + HOUR);
      const t = (ms: number) => timeToDb(store.dialect, ms);
      const key = (hash: string, expires: number) => ({
        tkn_hash: hash,
        family_id: 'f'.repeat(64),
        user_id: 1,
        user_role: 'superuser',
        issuer: 'i',
        audience: 'a',
        subject: '[]',
        apiversion: 1,
        ip_address: '::1',
        issued: t(now - 2 * HOUR),
        not_valid_before: t(now - 2 * HOUR),
        expires: t(expires),
      });
      await store.knex('apikeys_nosession').insert([
        key('0a'.repeat(32), now - HOUR), // expired, no refresh token: goes
        key('0b'.repeat(32), now - HOUR), // expired, but a live refresh token can renew it: stays
      ]);
      await store.knex('refresh_tokens').insert([
        {
          token_hash: '1a'.repeat(32),
          family_id: 'f'.repeat(64),
          apikey_hash: '0b'.repeat(32),
          user_id: 1,
          issued: t(now - HOUR),
          not_valid_before: t(now - HOUR),
          expires: t(now + HOUR),
        },
        {
          token_hash: '1b'.repeat(32),
          family_id: 'f'.repeat(64),
          apikey_hash: '0a'.repeat(32),
          user_id: 1,
          issued: t(now - 2 * HOUR),
          not_valid_before: t(now - 2 * HOUR),
          expires: t(now - HOUR),
        },
      ]);
      const report = await store.purgeExpired(now);
      assert.equal(report.ran, true);
      assert.deepEqual(report.deleted, { refresh_tokens: 1, apikeys_nosession: 1, apikeys: 0, sessions: 2 });
      const left = async (table: string, column: string) =>
        ((await store.knex(table).select(column).orderBy(column)) as Array<Record<string, string>>).map(
          (r) => r[column],
        );
      assert.deepEqual(await left('sessions', 'token_hash'), ['03'.repeat(32)]);
      assert.deepEqual(await left('apikeys_nosession', 'tkn_hash'), ['0b'.repeat(32)]);
      assert.deepEqual(await left('refresh_tokens', 'token_hash'), ['1a'.repeat(32)]);
    });

    if (db.kind !== 'sqlite') {
      it('is done by one instance at a time (advisory lock)', async () => {
        const target = await db.fresh();
        const [a, b] = [open(target), open(target)];
        await setUp(a);
        const whileHeld = await withCleanupLock(b.db, () => a.purgeExpired(clock.now()));
        assert.deepEqual(whileHeld, { ran: false, deleted: {} });
        // Released after each run, so runs one after the other all get it.
        for (const store of [a, b, a]) assert.equal((await store.purgeExpired(0)).ran, true);
      });
    }
  });
});
