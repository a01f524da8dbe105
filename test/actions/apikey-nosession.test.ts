/**
 * No-session API keys (issue 12): apikey-new-nosession, apikey-verify-nosession,
 * apikey-revoke-nosession and apikey-revokeall-nosession on every database, with a frozen clock.
 */
import { sqlOf } from '../helpers/sql.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashToken } from '../../src/domain/tokens.js';
import { forEachDatabase } from '../helpers/databases.js';
import { refusals } from '../helpers/refusals.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { insertUsers } from '../helpers/users.js';

const iso = (ms: number): string => new Date(ms).toISOString().replace('Z', '000+00:00');
type Dict = Record<string, unknown>;
const INVALID = 'key validation failed, provided key does not match stored key or has expired';

forEachDatabase((db) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ database: db });
    await insertUsers(server.app.store, [
      { userId: 4, role: 'authenticated' },
      { userId: 5, role: 'authenticated' },
      { userId: 6, role: 'superuser' },
    ]);
  });
  after(() => server.close());

  const issue = (overrides: Dict = {}) =>
    server.call('apikey-new-nosession', {
      issuer: 'frontend',
      audience: 'api.example.org',
      subject: '/api/data',
      apiversion: 3,
      expires_seconds: 3600,
      not_valid_before: 0,
      refresh_expires: 86_400,
      refresh_nbf: 0,
      user_id: 4,
      user_role: 'authenticated',
      ip_address: '2001:DB8::7',
      ...overrides,
    });
  async function keyOf(overrides: Dict = {}): Promise<{ dict: Dict; refresh: string }> {
    const reply = await issue(overrides);
    assert.ok(reply.success, JSON.stringify(reply));
    return { dict: JSON.parse(reply.response.apikey) as Dict, refresh: reply.response.refresh_token };
  }
  const use =
    (action: 'apikey-verify-nosession' | 'apikey-revoke-nosession' | 'apikey-revokeall-nosession') =>
    (dict: Dict, userId = 4, role = 'authenticated') =>
      server.call(action, { apikey_dict: dict, user_id: userId, user_role: role });
  const verify = use('apikey-verify-nosession');
  const revoke = use('apikey-revoke-nosession');
  const revokeAll = use('apikey-revokeall-nosession');

  const refused = refusals(() => server);

  describe('apikey-new-nosession', () => {
    it('issues a key without usa and a refresh token; both stored only as hashes', async () => {
      const now = server.clock.now();
      const reply = await issue({ not_valid_before: 10, refresh_nbf: 0.25 });
      assert.ok(reply.success, JSON.stringify(reply));
      const dict = JSON.parse(reply.response.apikey) as Dict;
      assert.deepEqual(Object.keys(dict), [
        'iss',
        'ver',
        'uid',
        'rol',
        'aud',
        'sub',
        'ipa',
        'tkn',
        'iat',
        'nbf',
        'exp',
      ]);
      assert.equal(dict['ipa'], '2001:db8::7');
      assert.equal(dict['sub'], '/api/data');
      assert.equal(dict['ver'], 3);
      assert.equal(dict['nbf'], iso(now + 10_000));
      assert.equal(dict['exp'], iso(now + 3_600_000));
      assert.equal(reply.response.expires, iso(now + 3_600_000));
      assert.equal(reply.response.refresh_token_expires, iso(now + 86_400_000));
      const refresh = reply.response.refresh_token;
      assert.match(refresh, /^[A-Za-z0-9_-]{43}$/);
      assert.deepEqual(reply.messages, [`API key generated successfully, expires: ${iso(now + 3_600_000)}.`]);
      const stored = JSON.stringify([
        await sqlOf(server.app.store)('apikeys_nosession').select('*'),
        await sqlOf(server.app.store)('refresh_tokens').select('*'),
      ]);
      assert.ok(stored.includes(hashToken(refresh)) && stored.includes(hashToken(String(dict['tkn']))));
      assert.ok(!stored.includes(refresh) && !stored.includes(String(dict['tkn'])), 'no token in clear');
    });

    it('refuses bad lifetimes, a forged role and callers the policy denies', async () => {
      for (const bad of [
        { expires_seconds: -5 },
        { expires_seconds: 366 * 86_400 },
        { refresh_expires: 0 },
        { refresh_nbf: -1 },
        { not_valid_before: 3600 },
        { refresh_expires: 60, refresh_nbf: 61 },
      ]) {
        await refused(() => issue(bad), 'invalid request parameters');
      }
      await refused(() => issue({ user_role: 'superuser' }), 'user initiating request is not valid');
      await refused(() => issue({ user_role: 'locked' }), 'user not allowed to issue API key');
      await refused(() => issue({ user_id: 999 }), 'user initiating request is not valid');
    });
  });

  describe('apikey-verify-nosession', () => {
    it('verifies inside the window, and fails before, after and for any edited field', async () => {
      const now = server.clock.now();
      const { dict } = await keyOf({ not_valid_before: 5 });
      await refused(() => verify(dict), INVALID, 'API key could not be verified.');
      server.clock.set(now + 5000);
      try {
        const ok = await verify(dict);
        assert.equal(ok.success, true, JSON.stringify(ok));
        assert.deepEqual(ok.messages, [`No-session API key verified successfully. Expires: ${iso(now + 3_600_000)}.`]);
        for (const edit of [
          { exp: iso(now + 1e12) },
          { ipa: '2001:db8::8' },
          { rol: 'superuser' },
          { sub: ['/api/data'] },
        ]) {
          await refused(() => verify({ ...dict, ...edit }), INVALID);
        }
        await refused(
          () => verify({ ...dict, usa: 'x' }),
          'the API key dict is malformed: it must hold exactly the fields issued, with their types',
        );
        await refused(() => verify(dict, 5), 'originating user is not allowed to operate on this API key');
        assert.equal((await verify(dict, 6, 'superuser')).success, true);
        server.clock.set(now + 3_600_000);
        await refused(() => verify(dict), INVALID);
      } finally {
        server.clock.set(now);
      }
    });

    it('does not take a session-tied dict, nor a no-session dict for apikey-verify', async () => {
      const { dict } = await keyOf();
      await refused(
        () => server.call('apikey-verify', { apikey_dict: dict, user_id: 4, user_role: 'authenticated' }),
        'the API key dict is malformed: it must hold exactly the fields issued, with their types',
      );
    });
  });

  describe('apikey-revoke-nosession', () => {
    it('revokes the key and its refresh token; an edited dict revokes nothing', async () => {
      const { dict, refresh } = await keyOf();
      await refused(() => revoke({ ...dict, iss: 'x' }), INVALID);
      await refused(() => revoke(dict, 5), 'originating user is not allowed to operate on this API key');
      const reply = await revoke(dict);
      assert.equal(reply.success, true, JSON.stringify(reply));
      assert.deepEqual(reply.messages, ['API key revocation processed.']);
      await refused(() => verify(dict), INVALID);
      const left = await sqlOf(server.app.store)('refresh_tokens').where('token_hash', hashToken(refresh));
      assert.equal(left.length, 0, 'its refresh token is gone');
    });
  });

  describe('apikey-revokeall-nosession', () => {
    it("needs a valid unexpired key of the user, then revokes all the user's no-session keys", async () => {
      await server.call('apikey-revokeall-nosession', {
        apikey_dict: (await keyOf()).dict,
        user_id: 4,
        user_role: 'authenticated',
      });
      const keys = [await keyOf(), await keyOf(), await keyOf({ expires_seconds: 10 })];
      const theirs = await keyOf({ user_id: 5 });
      const now = server.clock.now();
      server.clock.set(now + 10_000);
      try {
        await refused(
          () => revokeAll(keys[2]!.dict),
          INVALID,
          'All API keys revocation failed. The API key presented is invalid.',
        );
        await refused(() => revokeAll({ ...keys[0]!.dict, aud: 'x' }), INVALID);
        await refused(
          () => revokeAll(keys[0]!.dict, 5),
          'originating user is not allowed to operate on this API key',
          'All API keys revocation failed. You are not allowed to delete API keys.',
        );
        const reply = await revokeAll(keys[0]!.dict);
        assert.equal(reply.success, true, JSON.stringify(reply));
        assert.deepEqual(reply.response, { deleted_keys: 3, revoked_keys: 3 });
        assert.deepEqual(reply.messages, ['All API keys revocation processed.']);
        await refused(() => verify(keys[1]!.dict), INVALID);
        assert.equal((await verify(theirs.dict, 5)).success, true, "another user's keys stay");
        const refresh = await sqlOf(server.app.store)('refresh_tokens').where('user_id', 4);
        assert.equal(refresh.length, 0);
      } finally {
        server.clock.set(now);
      }
    });
  });
});
