/**
 * apikey-refresh-nosession (issue 12, docs/design.md#api-keys-and-refresh-tokens): rotation, the grace period for the
 * loser of a race, theft detection revoking a family of three generations, and refusals that change nothing.
 * A frozen clock drives every window.
 */
import { sqlOf } from '../helpers/sql.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashToken } from '../../src/domain/tokens.js';
import { forEachDatabase } from '../helpers/databases.js';
import { reason, refusals } from '../helpers/refusals.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { insertUsers, updateUser } from '../helpers/users.js';

const iso = (ms: number): string => new Date(ms).toISOString().replace('Z', '000+00:00');
type Dict = Record<string, unknown>;
interface Key {
  readonly dict: Dict;
  readonly refresh: string;
}
const NO_REFRESH = 'provided API key has no valid refresh token';
const ROTATED = 'the refresh token was exchanged moments ago by another request; nothing was changed';
const FAILED =
  'API key refresh failed. The API key presented does not have a valid refresh token. ' +
  'You may need to login again to generate a new API key.';

forEachDatabase((db) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ database: db, config: { refreshGraceSeconds: 10 } });
    await insertUsers(server.app.store, [
      { userId: 4, role: 'authenticated' },
      { userId: 5, role: 'authenticated' },
      { userId: 6, role: 'authenticated' },
    ]);
  });
  after(() => server.close());

  async function issue(userId = 4, overrides: Dict = {}): Promise<Key> {
    const reply = await server.call('apikey-new-nosession', {
      issuer: 'frontend',
      audience: 'api.example.org',
      subject: ['/api/a'],
      apiversion: 2,
      expires_seconds: 60,
      not_valid_before: 0,
      refresh_expires: 3600,
      refresh_nbf: 0,
      user_id: userId,
      user_role: 'authenticated',
      ip_address: '192.0.2.1',
      ...overrides,
    });
    assert.ok(reply.success, JSON.stringify(reply));
    return { dict: JSON.parse(reply.response.apikey) as Dict, refresh: reply.response.refresh_token };
  }

  const refresh = (key: Key, overrides: Dict = {}) =>
    server.call('apikey-refresh-nosession', {
      apikey_dict: key.dict,
      user_id: key.dict['uid'],
      user_role: key.dict['rol'],
      refresh_token: key.refresh,
      ip_address: '192.0.2.99',
      expires_seconds: 120,
      not_valid_before: 0,
      refresh_expires: 7200,
      refresh_nbf: 0,
      ...overrides,
    });

  async function refreshed(key: Key): Promise<Key> {
    const reply = await refresh(key);
    assert.ok(reply.success, JSON.stringify(reply));
    return { dict: JSON.parse(reply.response.apikey) as Dict, refresh: reply.response.refresh_token };
  }

  const verifies = async (key: Key): Promise<boolean> =>
    (
      await server.call('apikey-verify-nosession', {
        apikey_dict: key.dict,
        user_id: Number(key.dict['uid']),
        user_role: String(key.dict['rol']),
      })
    ).success;

  /** Every refusal says only that the refresh failed, and issues or revokes nothing. */
  const refused = refusals(() => server, { messages: [FAILED] });

  const at = async <T>(ms: number, run: () => Promise<T>): Promise<T> => {
    const now = server.clock.now();
    server.clock.set(ms);
    try {
      return await run();
    } finally {
      server.clock.set(now);
    }
  };

  describe('rotation', () => {
    it("returns a new key (the old key's iss, ver, aud, sub, uid, rol; the request's IP and lifetimes) and revokes the old", async () => {
      const old = await issue();
      const now = server.clock.now();
      const reply = await refresh(old);
      assert.ok(reply.success, JSON.stringify(reply));
      const dict = JSON.parse(reply.response.apikey) as Dict;
      assert.deepEqual(
        { ...dict, tkn: null },
        {
          iss: 'frontend',
          ver: 2,
          uid: 4,
          rol: 'authenticated',
          aud: 'api.example.org',
          sub: ['/api/a'],
          ipa: '192.0.2.99',
          tkn: null,
          iat: iso(now),
          nbf: iso(now),
          exp: iso(now + 120_000),
        },
      );
      assert.notEqual(dict['tkn'], old.dict['tkn']);
      assert.notEqual(reply.response.refresh_token, old.refresh);
      assert.equal(reply.response.refresh_token_expires, iso(now + 7_200_000));
      assert.deepEqual(reply.messages, [`API key generated successfully, expires: ${iso(now + 120_000)}.`]);
      assert.equal(await verifies(old), false, 'the old key is revoked');
      assert.equal(await verifies({ dict, refresh: '' }), true);
    });

    it('refreshes an expired key while its refresh token is valid, not before refresh_nbf nor after refresh_expires', async () => {
      const now = server.clock.now();
      const key = await issue(4, { refresh_nbf: 30 });
      await refused(() => refresh(key), NO_REFRESH);
      await at(now + 3_600_000, () => refused(() => refresh(key), NO_REFRESH));
      const next = await at(now + 120_000, () => refreshed(key));
      assert.equal(typeof next.refresh, 'string');
    });
  });

  describe('reuse of a rotated token', () => {
    it('fails without side effects within refreshgrace, so the winner of a race keeps its key', async () => {
      const old = await issue();
      const now = server.clock.now();
      const winner = await refreshed(old);
      await at(now + 9_999, () => refused(() => refresh(old), ROTATED));
      assert.equal(await verifies(winner), true);
    });

    it('after refreshgrace, revokes the whole family (three generations) and records an audit event', async () => {
      const start = server.clock.now();
      const first = await issue();
      const bystander = await issue();
      const second = await at(start + 1000, () => refreshed(first));
      const third = await at(start + 2000, () => refreshed(second));
      assert.equal(await at(start + 2000, () => verifies(third)), true);
      const reply = await at(start + 20_000, () => refresh(second));
      assert.equal(reason(reply), NO_REFRESH, 'the answer says only that the refresh failed');
      assert.deepEqual(reply.messages, [FAILED]);
      assert.equal(await at(start + 2000, () => verifies(third)), false, 'the newest generation is revoked');
      await refused(() => refresh(third), NO_REFRESH);
      await refused(() => refresh(first), NO_REFRESH);
      const family = await sqlOf(server.app.store)('refresh_tokens').whereIn(
        'token_hash',
        [first, second, third].map((k) => hashToken(k.refresh)),
      );
      assert.equal(family.length, 0);
      assert.equal(await verifies(bystander), true, "another family of the user's stays");
      assert.ok(server.logs.some((l) => l['audit'] === 'apikey.refresh-reuse-detected'));
    });
  });

  describe('refusals that change nothing', () => {
    it("refuses a refresh token of another key or another user, and a request that is not the key's user or role", async () => {
      const mine = await issue(4);
      const theirs = await issue(5);
      await refused(() => refresh({ dict: mine.dict, refresh: theirs.refresh }), NO_REFRESH);
      await refused(() => refresh({ dict: theirs.dict, refresh: mine.refresh }), NO_REFRESH);
      await refused(() => refresh(mine, { refresh_token: 'x'.repeat(43) }), NO_REFRESH);
      await refused(
        () => refresh(mine, { user_id: 5 }),
        "the request's user_id and user_role are not the key's uid and rol",
      );
      await refused(
        () => refresh(mine, { user_role: 'superuser' }),
        "the request's user_id and user_role are not the key's uid and rol",
      );
      await refused(() => refresh({ ...mine, dict: { ...mine.dict, uid: 5 } }, { user_id: 5 }), NO_REFRESH);
      const forged = { ...mine, dict: { ...mine.dict, rol: 'superuser' } };
      await refused(() => refresh(forged), 'user initiating request is not valid');
      await refused(
        () => refresh({ ...mine, dict: { ...mine.dict, exp: iso(server.clock.now() + 1e12) } }),
        'key validation failed, provided key does not match stored key or has expired',
      );
      await refused(
        () => refresh({ ...mine, dict: { ...mine.dict, extra: 1 } }),
        'the API key dict is malformed: it must hold exactly the fields issued, with their types',
      );
      assert.equal(await verifies(mine), true);
    });

    it('refuses a user who is no longer active or holds another role (the reference would refresh into it)', async () => {
      const key = await issue(6);
      await updateUser(server.app.store, 6, { role: 'staff' });
      await refused(() => refresh(key), 'user initiating request is not valid');
      await refused(
        () => refresh(key, { user_role: 'staff' }),
        "the request's user_id and user_role are not the key's uid and rol",
      );
      await updateUser(server.app.store, 6, { role: 'authenticated', active: false });
      await refused(() => refresh(key), 'user initiating request is not valid');
      await updateUser(server.app.store, 6, { active: true });
    });

    it('refuses negative, huge and inverted lifetimes', async () => {
      const key = await issue();
      for (const bad of [
        { expires_seconds: -1 },
        { refresh_expires: 1e9 },
        { not_valid_before: 200 },
        { refresh_nbf: 7200 },
      ]) {
        const digest = await server.digest();
        const reply = await refresh(key, bad);
        assert.equal(reason(reply), 'invalid request parameters', JSON.stringify(bad));
        assert.equal(await server.digest(), digest);
      }
      assert.equal((await refresh(key)).success, true);
      assert.equal(server.logs.filter((l) => l.level === 'error').length, 0, 'no exception logged');
    });
  });
  describe('purge (runs last: it deletes what every earlier test left)', () => {
    it('keeps a rotated token until it expires, then the purge deletes expired keys and refresh tokens', async () => {
      const start = server.clock.now();
      const old = await issue(4, { expires_seconds: 60, refresh_expires: 600 });
      const next = await refreshed(old);
      const store = server.app.store;
      const rotated = () => sqlOf(store)('refresh_tokens').where('token_hash', hashToken(old.refresh));
      assert.equal((await store.purgeExpired(start + 599_000)).ran, true);
      assert.equal((await rotated()).length, 1, 'kept while it can still be presented');
      assert.equal(await at(start + 599_000, () => verifies(next)), false, 'the new key expired at 120 s');
      await store.purgeExpired(start + 7_200_000);
      assert.equal((await rotated()).length, 0);
      const left = await sqlOf(store)('refresh_tokens').where(
        'expires',
        '<=',
        store.dialect === 'sqlite' ? start + 7_200_000 : new Date(start + 7_200_000),
      );
      assert.equal(left.length, 0);
      const keys = await sqlOf(store)('apikeys_nosession').where('tkn_hash', hashToken(String(next.dict['tkn'])));
      assert.equal(keys.length, 0, 'the expired key went once its refresh token had expired');
    });
  });
});
