/**
 * The storage suite: the same expectations on SQLite, PostgreSQL and MariaDB/MySQL
 * (docs/design.md#database-urls-times-and-models, docs/design.md#storage-on-three-databases). Each database is a fresh
 * one of this file, dropped afterwards.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { randomSource } from '../../src/domain/ports.js';
import { withCleanupLock } from '../../src/services/store/cleanup.js';
import { timeToDb } from '../../src/services/store/dialect.js';
import { openStore } from '../../src/services/store/index.js';
import type { Store } from '../../src/services/store/index.js';
import { MAINTENANCE_LIMITS } from '../../src/services/store/db.js';
import { MIGRATIONS_TABLE, migrationSource } from '../../src/services/store/migrations.js';
import { openDb } from '../../src/services/store/open-db.js';
import { seedFixedAccounts } from '../../src/services/store/seed.js';
import type { DatabaseTarget } from '../../src/services/store/url.js';
import { FrozenClock } from '../helpers/clock.js';
import { forEachDatabase } from '../helpers/databases.js';
import { testHasher } from '../helpers/server.js';
import { sqlOf } from '../helpers/sql.js';

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
    await sqlOf(store)('users').insert({
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
    const row: { user_id: unknown } = await sqlOf(store)('users').where('email', email).first('user_id');
    return Number(row.user_id);
  };

  describe('migrations and the fixed accounts', () => {
    it('two instances starting together both succeed, and exactly one creates the superuser', async () => {
      const target = await db.fresh();
      const [a, b] = [open(target), open(target)];
      const results = await Promise.all([setUp(a, 'one@example.org'), setUp(b, 'two@example.org')]);
      assert.equal(results.filter((r) => r.created !== null).length, 1);
      const rows = (await sqlOf(a)('users').select('user_id', 'user_role').orderBy('user_id')) as Array<{
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

    it('repairs the lock table two first starts left with two rows, instead of finding it locked for ever', async () => {
      // Two first starts may both find knex's lock table empty and both insert its row; with two rows
      // knex's lock update never matches exactly one, so every later start would wait and fail.
      const target = await db.fresh();
      const store = open(target);
      const sql = sqlOf(store);
      await sql.schema.createTable('authsvc_migrations_lock', (t) => {
        t.increments('index').primary();
        t.integer('is_locked');
      });
      await sql('authsvc_migrations_lock').insert([{ is_locked: 0 }, { is_locked: 0 }]);
      await store.migrate({ retryForMs: 3_000 });
      const locks: Array<{ is_locked: unknown }> = await sql('authsvc_migrations_lock').select('is_locked');
      assert.deepEqual(
        locks.map((l) => Number(l.is_locked)),
        [0],
      );
    });

    it('gives the sessions open before 0005_session_devices ids of their own, last seen when created', async () => {
      const store = await ready();
      const sql = sqlOf(store);
      const options = { migrationSource: migrationSource(store.dialect), tableName: MIGRATIONS_TABLE };
      await sql.migrate.down(options);
      assert.equal(await sql.schema.hasTable('user_events'), true, 'back before 0007 only');
      await sql.migrate.down(options);
      assert.equal(await sql.schema.hasTable('user_events'), false, 'back before 0006');
      await sql.migrate.down(options);
      assert.equal(await sql.schema.hasColumn('sessions', 'session_id'), false, 'back before 0005');
      const created = clock.now();
      const hashes = ['a1', 'b2', 'c3'].map((p) => p.repeat(32));
      await sql('sessions').insert(
        hashes.map((token_hash) => ({
          token_hash,
          user_id: 1,
          ip_address: '::1',
          user_agent: 'ua',
          created: timeToDb(store.dialect, created),
          expires: timeToDb(store.dialect, created + HOUR),
          extra_info_json: '{}',
        })),
      );
      await store.migrate();
      const ids = await Promise.all(hashes.map(async (h) => (await store.sessions.find(h, created))?.sessionId));
      for (const id of ids) assert.match(id ?? '', /^[A-Za-z0-9_-]{22}$/);
      assert.equal(new Set(ids).size, 3);
      assert.equal((await store.sessions.find(hashes[0]!, created))?.lastSeen, created);
      assert.equal(await sql.schema.hasTable('user_events'), true, 'and 0006 again');
    });

    it('an instance that seeds the superuser after another did, under another email, learns it did not create it', async () => {
      // Two instances seeding together may both find user 1 missing, then both insert it: the later
      // insert is ignored, whatever email it carried.
      const store = await ready();
      const created = await store.users.insertIfAbsent({
        userId: 1,
        systemId: 'late-instance',
        fullName: 'Superuser account',
        email: 'late@example.org',
        passwordHash: 'x',
        emailVerified: true,
        isActive: true,
        userRole: 'superuser',
        extraInfo: {},
        now: clock.now(),
      });
      assert.equal(created, false);
      assert.equal((await store.users.byId(1))?.email, 'admin@example.org');
    });

    it('gives the first user created by the database itself the id 4 (the sequence is past the fixed ids)', async () => {
      const store = await ready();
      assert.equal(await addUser(store, 'four@example.org'), 4);
    });

    it('a second start changes nothing and creates nobody', async () => {
      const target = await db.fresh();
      const first = open(target);
      await setUp(first);
      const before = await sqlOf(first)('users').select('*').orderBy('user_id');
      const second = open(target);
      const again = await setUp(second, 'other@example.org');
      assert.equal(again.created, null);
      assert.deepEqual(await sqlOf(second)('users').select('*').orderBy('user_id'), before);
      assert.equal(await addUser(second, 'next@example.org'), 4);
    });
  });

  describe('byte-exact comparison of emails, system ids and token hashes', () => {
    it('keeps addresses differing only by case, accent or trailing space apart', async () => {
      const store = await ready();
      const emails = ['jose@x.com', 'JOSE@x.com', 'josé@x.com', 'jose@x.com '];
      for (const email of emails) await addUser(store, email);
      for (const email of emails) {
        const rows: Array<{ email: string }> = await sqlOf(store)('users').where('email', email).select('email');
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
          sessionId: hash.slice(0, 22),
          userId: 1,
          ipAddress: '192.0.2.1',
          userAgent: 'ua',
          created: now,
          lastSeen: now,
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

  describe('the hot statements (prepared once, run without knex)', () => {
    const session = (tokenHash: string, userId: number) => ({
      tokenHash,
      sessionId: tokenHash.slice(0, 22),
      userId,
      ipAddress: '192.0.2.1',
      userAgent: 'ua',
      created: clock.now(),
      lastSeen: clock.now(),
      expires: clock.now() + HOUR,
      extraInfo: { k: 'v' },
    });

    it('reads the standings of 1 to 20 users alike, below and above the prepared statements’ count', async () => {
      const store = await ready();
      const added: number[] = [];
      for (let i = 0; i < 18; i++) added.push(await addUser(store, `standing-${i}@x.org`));
      const ids = [1, 2, 999_999, 1, ...added];
      const rows: Array<{ user_id: unknown; user_role: string }> = await sqlOf(store)('users').select(
        'user_id',
        'user_role',
      );
      const roles = new Map(rows.map((row) => [Number(row.user_id), row.user_role]));
      for (let count = 1; count <= ids.length; count++) {
        const asked = ids.slice(0, count);
        const standings = await store.users.standings(asked);
        const expected = [...new Set(asked)]
          .filter((id) => roles.has(id))
          .sort((a, b) => a - b)
          .map((id) => [id, { userRole: roles.get(id), isActive: id === 1 || id === 2, credentialGeneration: 0 }]);
        assert.deepEqual(
          [...standings].sort((a, b) => a[0] - b[0]),
          expected,
          `${count} ids`,
        );
      }
    });

    it('inserts a session in one statement only when its user exists', async () => {
      const store = await ready();
      assert.equal(await store.sessions.create(session('01'.repeat(32), 999_999)), false);
      assert.equal(await sqlOf(store)('sessions').where('token_hash', '01'.repeat(32)).first(), undefined);
      assert.equal(await store.sessions.create(session('02'.repeat(32), 2)), true);
      assert.deepEqual((await store.sessions.find('02'.repeat(32), clock.now()))?.extraInfo, { k: 'v' });
    });

    it('never run inside a transaction another caller holds open (nor are rolled back with it)', async () => {
      const store = await ready();
      const before = await store.sessions.create(session('03'.repeat(32), 1));
      assert.equal(before, true);
      let release = (): void => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      let opened = (): void => undefined;
      const isOpen = new Promise<void>((resolve) => (opened = resolve));
      const transaction = sqlOf(store)
        .transaction(async (trx) => {
          await trx('users').where('user_id', 1).update({ full_name: 'uncommitted' });
          opened();
          await held;
          throw new Error('rolled back on purpose');
        })
        .catch((error: unknown) => error);
      await isOpen;
      const reading = store.sessions.findWithUser('03'.repeat(32), clock.now());
      const creating = store.sessions.create(session('04'.repeat(32), 2));
      await new Promise((resolve) => setImmediate(resolve));
      release();
      assert.ok((await transaction) instanceof Error);
      assert.notEqual((await reading)?.user.fullName, 'uncommitted', 'read the uncommitted row');
      assert.equal(await creating, true);
      assert.notEqual(await store.sessions.find('04'.repeat(32), clock.now()), null, 'rolled back with it');
    });
  });

  describe('times and JSON', () => {
    it('returns times to the millisecond, as UTC instants, whatever the process time zone', async () => {
      const store = await ready();
      const at = Date.UTC(2038, 0, 19, 3, 14, 8, 601); // past MySQL's TIMESTAMP range, odd milliseconds
      const now = clock.now();
      await store.sessions.create({
        tokenHash: 'cd'.repeat(32),
        sessionId: 'cd'.repeat(11),
        userId: 2,
        ipAddress: '::1',
        userAgent: 'ua',
        created: now,
        lastSeen: now,
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
        sessionId: 'ef'.repeat(11),
        userId: 1,
        ipAddress: '::1',
        userAgent: 'ua',
        created: now,
        lastSeen: now,
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

  describe("the lock-out counter (the store's one technique for atomic counters)", () => {
    const TRIES = 10;
    const fail = (store: Store, userId: number) => store.users.recordFailure(userId, clock.now(), TRIES, HOUR);

    it('20 concurrent failures from two connection pools count 20, each seeing its own value, and lock once', async () => {
      const target = await db.fresh();
      const [a, b] = [open(target), open(target)];
      await setUp(a);
      const seen = await Promise.all(Array.from({ length: 20 }, (_, i) => fail(i % 2 === 0 ? a : b, 1)));
      assert.deepEqual(
        seen.map((s) => s?.count ?? 0).sort((x, y) => x - y),
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
      assert.equal(seen.filter((s) => s?.lockedNow === true).length, 1);
      assert.equal(new Set(seen.map((s) => s?.lockedUntil)).size, 2, 'no lock, then one lock time for all');
      const user = await a.users.byId(1);
      assert.equal(user?.failedLoginTries, 20);
      assert.equal(user?.lockedUntil, clock.now() + HOUR);
      assert.equal(user?.lastLoginTry, clock.now());
    });

    it('returns null when no row matches', async () => {
      const store = await ready();
      assert.equal(await fail(store, 999_999), null);
    });

    it('locks over the old count on every database, and starts again once the lock has expired', async () => {
      const store = await ready();
      const counts = async (n: number) => {
        const seen = [];
        for (let i = 0; i < n; i++) seen.push(await store.users.recordFailure(2, clock.now(), 2, HOUR));
        return seen.map((s) => [s?.count, s?.lockedUntil !== null, s?.lockedNow]);
      };
      assert.deepEqual(await counts(4), [
        [1, false, false],
        [2, false, false],
        [3, true, true],
        [4, true, false],
      ]);
      const expired = new FrozenClock(clock.now() + HOUR);
      const again = await store.users.recordFailure(2, expired.now(), 2, HOUR);
      assert.deepEqual(again, { count: 1, lockedUntil: null, lockedNow: false });
      await store.users.recordSuccess(2, expired.now());
      const user = await store.users.byId(2);
      assert.deepEqual([user?.failedLoginTries, user?.lockedUntil, user?.lastLoginSuccess], [0, null, expired.now()]);
    });
  });

  describe('purge of expired rows', () => {
    it('deletes what expired by the injected clock and keeps the rest', async () => {
      const store = await ready();
      const now = clock.now();
      const session = (hash: string, expires: number) =>
        store.sessions.create({
          tokenHash: hash,
          sessionId: hash.slice(0, 22),
          userId: 1,
          ipAddress: '::1',
          userAgent: 'ua',
          created: now - 2 * HOUR,
          lastSeen: now - 2 * HOUR,
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
      await sqlOf(store)('apikeys_nosession').insert([
        key('0a'.repeat(32), now - HOUR), // expired, no refresh token: goes
        key('0b'.repeat(32), now - HOUR), // expired, but a live refresh token can renew it: stays
      ]);
      await sqlOf(store)('refresh_tokens').insert([
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
      const ticket = (hash: string, expires: number) =>
        store.factors.createTicket({
          ticketHash: hash,
          userId: 1,
          sessionHash: null,
          origin: 'user-login',
          generation: 0,
          wrongTries: 0,
          created: now - HOUR,
          expires,
        });
      await ticket('2a'.repeat(32), now);
      await ticket('2b'.repeat(32), now + 1);
      const challenge = (hash: string, expires: number) =>
        store.factors.createChallenge({
          challengeHash: hash,
          purpose: 'login',
          userId: null,
          sessionHash: hash,
          expires,
        });
      await challenge('3a'.repeat(32), now);
      await challenge('3b'.repeat(32), now + 1);
      const report = await store.purgeExpired(now);
      assert.equal(report.ran, true);
      assert.deepEqual(report.deleted, {
        refresh_tokens: 1,
        apikeys_nosession: 1,
        apikeys: 0,
        login_tickets: 1,
        passkey_challenges: 1,
        user_events: 0,
        sessions: 2,
      });
      const left = async (table: string, column: string) =>
        ((await sqlOf(store)(table).select(column).orderBy(column)) as Array<Record<string, string>>).map(
          (r) => r[column],
        );
      assert.deepEqual(await left('sessions', 'token_hash'), ['03'.repeat(32)]);
      assert.deepEqual(await left('apikeys_nosession', 'tkn_hash'), ['0b'.repeat(32)]);
      assert.deepEqual(await left('refresh_tokens', 'token_hash'), ['1a'.repeat(32)]);
      assert.deepEqual(await left('login_tickets', 'ticket_hash'), ['2b'.repeat(32)]);
      assert.deepEqual(await left('passkey_challenges', 'challenge_hash'), ['3b'.repeat(32)]);
    });

    it('deletes in batches of the size asked, letting other work run between two batches', async () => {
      const store = await ready();
      const now = clock.now();
      const t = (ms: number) => timeToDb(store.dialect, ms);
      const rows = Array.from({ length: 1200 }, (_, i) => ({
        token_hash: i.toString(16).padStart(64, '0'),
        session_id: i.toString(16).padStart(22, '0'),
        user_id: 1,
        ip_address: '::1',
        user_agent: 'ua',
        created: t(now - 2 * HOUR),
        last_seen: t(now - 2 * HOUR),
        expires: t(i < 1000 ? now - HOUR : now + HOUR),
        extra_info_json: '{}',
      }));
      for (let i = 0; i < rows.length; i += 200) await sqlOf(store)('sessions').insert(rows.slice(i, i + 200));
      const progress: Array<[string, number]> = [];
      let turns = 0;
      let purging = true;
      // Counts the event loop's turns while the purge runs: a request's I/O is served on such a turn.
      const turn = (): void => {
        turns += 1;
        if (purging) setImmediate(turn);
      };
      setImmediate(turn);
      const report = await store.purgeExpired(now, {
        batch: 100,
        progress: (table, deleted) => progress.push([table, deleted]),
      });
      purging = false;
      assert.equal(report.deleted['sessions'], 1000);
      const sessions = progress.filter(([table]) => table === 'sessions').map(([, deleted]) => deleted);
      assert.deepEqual(sessions, [100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
      assert.ok(turns >= sessions.length, `the event loop turned ${turns} times during ${sessions.length} batches`);
    });

    if (db.kind !== 'sqlite') {
      it('is done by one instance at a time (advisory lock)', async () => {
        const target = await db.fresh();
        const [a, b] = [open(target), open(target)];
        await setUp(a);
        const holder = openDb(target, MAINTENANCE_LIMITS);
        try {
          const whileHeld = await withCleanupLock(holder, () => a.purgeExpired(clock.now()));
          assert.deepEqual(whileHeld, { ran: false, deleted: {} });
        } finally {
          await holder.close();
        }
        // Released after each run, so runs one after the other all get it.
        for (const store of [a, b, a]) assert.equal((await store.purgeExpired(0)).ran, true);
      });
    }
  });
});
