/**
 * Session-tied API keys (issue 12): apikey-new, apikey-verify, apikey-revoke on every database, with
 * a frozen clock for the time windows, and the key dying with its session.
 */
import { sqlOf } from '../helpers/sql.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashToken } from '../../src/domain/tokens.js';
import { openSession } from '../helpers/accounts.js';
import { forEachDatabase } from '../helpers/databases.js';
import { reason, refusals } from '../helpers/refusals.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { insertUsers } from '../helpers/users.js';

const DAY = 86_400_000;
const iso = (ms: number): string => new Date(ms).toISOString().replace('Z', '000+00:00');
type Dict = Record<string, unknown>;

forEachDatabase((db) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ database: db });
    await insertUsers(server.app.store, [
      { userId: 4, role: 'authenticated' },
      { userId: 5, role: 'authenticated' },
      { userId: 6, role: 'staff' },
      { userId: 7, role: 'authenticated', active: false },
    ]);
  });
  after(() => server.close());

  const issue = (session: string, overrides: Dict = {}) =>
    server.call('apikey-new', {
      issuer: 'frontend',
      audience: 'api.example.org',
      subject: ['/api/data', '/api/more'],
      apiversion: 1,
      expires_days: 30,
      not_valid_before: 0,
      user_id: 4,
      user_role: 'authenticated',
      ip_address: '198.51.100.20',
      user_agent: 'test agent',
      session_token: session,
      ...overrides,
    });

  async function keyOf(session: string, overrides: Dict = {}): Promise<Dict> {
    const reply = await issue(session, overrides);
    assert.ok(reply.success, JSON.stringify(reply));
    return JSON.parse(reply.response.apikey) as Dict;
  }

  const verify = (dict: Dict, userId = 4, role = 'authenticated') =>
    server.call('apikey-verify', { apikey_dict: dict, user_id: userId, user_role: role });
  const revoke = (dict: Dict, userId = 4, role = 'authenticated') =>
    server.call('apikey-revoke', { apikey_dict: dict, user_id: userId, user_role: role });

  /** The reply fails with `failure` (and `message`), and the database is unchanged. */
  const refused = refusals(() => server);

  describe('apikey-new', () => {
    it("issues the key dict as JSON in the reference's key order, and stores only the token's hash", async () => {
      const session = await openSession(server, 4);
      const now = server.clock.now();
      const reply = await issue(session, { not_valid_before: 1.5 });
      assert.ok(reply.success, JSON.stringify(reply));
      const text = reply.response.apikey;
      const dict = JSON.parse(text) as Dict;
      assert.deepEqual(Object.keys(dict), [
        'iss',
        'ver',
        'uid',
        'rol',
        'usa',
        'aud',
        'sub',
        'ipa',
        'tkn',
        'iat',
        'nbf',
        'exp',
      ]);
      assert.deepEqual(dict, {
        iss: 'frontend',
        ver: 1,
        uid: 4,
        rol: 'authenticated',
        usa: 'test agent',
        aud: 'api.example.org',
        sub: ['/api/data', '/api/more'],
        ipa: '198.51.100.20',
        tkn: dict['tkn'],
        iat: iso(now),
        nbf: iso(now + 1500),
        exp: iso(now + 30 * DAY),
      });
      assert.match(String(dict['tkn']), /^[A-Za-z0-9_-]{43}$/);
      assert.equal(reply.response.expires, iso(now + 30 * DAY));
      assert.deepEqual(reply.messages, [`API key generated successfully, expires: ${iso(now + 30 * DAY)}.`]);
      const rows = await sqlOf(server.app.store)('apikeys').select('*');
      assert.ok(rows.some((r: { tkn_hash: string }) => r.tkn_hash === hashToken(String(dict['tkn']))));
      assert.ok(!JSON.stringify(rows).includes(String(dict['tkn'])), 'the token itself is not stored');
    });

    it("takes a string subject and the reference's string apiversion", async () => {
      const session = await openSession(server, 4);
      const dict = await keyOf(session, { subject: '/api/one', apiversion: '2' });
      assert.equal(dict['sub'], '/api/one');
      assert.equal(dict['ver'], 2);
      assert.equal((await verify(dict)).success, true);
    });

    it('refuses a session that does not exist, has expired, or is not the request user, IP or agent', async () => {
      const session = await openSession(server, 4, 1);
      await refused(
        () => issue('no-such-session'),
        'invalid session for user requesting API key issuance',
        'Invalid session token for API key issuance request.',
      );
      const mismatch = 'DB session user_id, ip_address, user_agent, user_role does not match provided session info.';
      await refused(
        () => issue(session, { ip_address: '198.51.100.21' }),
        'invalid session for user requesting API key issuance',
        mismatch,
      );
      await refused(
        () => issue(session, { user_agent: 'other agent' }),
        'invalid session for user requesting API key issuance',
        mismatch,
      );
      const other = await openSession(server, 5);
      await refused(() => issue(other), 'invalid session for user requesting API key issuance', mismatch);
      server.clock.advance(DAY);
      try {
        await refused(() => issue(session), 'invalid session for user requesting API key issuance');
      } finally {
        server.clock.advance(-DAY);
      }
    });

    it('refuses a caller the policy does not allow, a forged role, an inactive or unknown user', async () => {
      const session = await openSession(server, 4);
      const denied = 'API key issuance failed. You are not allowed to issue an API key.';
      await refused(() => issue(session, { user_role: 'anonymous' }), 'user not allowed to issue API key', denied);
      await refused(() => issue(session, { user_role: 'staff' }), 'user initiating request is not valid', denied);
      await refused(() => issue(session, { user_role: 'superuser' }), 'user initiating request is not valid', denied);
      const inactive = await openSession(server, 7);
      await refused(() => issue(inactive, { user_id: 7 }), 'user initiating request is not valid', denied);
      await refused(() => issue(session, { user_id: 999 }), 'user initiating request is not valid', denied);
    });

    it('refuses negative, huge and inverted lifetimes', async () => {
      const session = await openSession(server, 4);
      for (const bad of [
        { expires_days: 0 },
        { expires_days: -1 },
        { expires_days: 366 },
        { not_valid_before: -1 },
        { not_valid_before: 1e12 },
        { expires_days: 1, not_valid_before: 86_400 },
      ]) {
        await refused(() => issue(session, bad), 'invalid request parameters');
      }
    });
  });

  describe('apikey-verify', () => {
    it('verifies inside nbf ≤ now < exp, and not before or after', async () => {
      const session = await openSession(server, 4, 60);
      const now = server.clock.now();
      const dict = await keyOf(session, { not_valid_before: 60, expires_days: 1 });
      await refused(
        () => verify(dict),
        'key validation failed, provided key does not match stored key or has expired',
        'API key could not be verified.',
      );
      server.clock.set(now + 60_000);
      try {
        const ok = await verify(dict);
        assert.equal(ok.success, true, JSON.stringify(ok));
        assert.deepEqual(ok.messages, [`API key verified successfully. Expires: ${iso(now + DAY)}.`]);
        server.clock.set(now + DAY - 1);
        assert.equal((await verify(dict)).success, true);
        server.clock.set(now + DAY);
        assert.equal(
          reason(await verify(dict)),
          'key validation failed, provided key does not match stored key or has expired',
        );
      } finally {
        server.clock.set(now);
      }
    });

    it('fails for every edited field, a far-future exp, a forged uid or rol and a swapped tkn', async () => {
      const session = await openSession(server, 4);
      const dict = await keyOf(session);
      const other = await keyOf(await openSession(server, 4), { audience: 'other.example.org' });
      const edits: Dict[] = [
        { iss: 'attacker' },
        { ver: 2 },
        { rol: 'superuser' },
        { usa: 'other agent' },
        { aud: 'other' },
        { sub: ['/api/data'] },
        { sub: '/api/data' },
        { ipa: '203.0.113.1' },
        { tkn: other['tkn'] },
        { iat: iso(server.clock.now() - 1) },
        { nbf: iso(server.clock.now() - DAY) },
        { exp: iso(server.clock.now() + 3650 * DAY) },
      ];
      for (const edit of edits) {
        await refused(
          () => verify({ ...dict, ...edit }),
          'key validation failed, provided key does not match stored key or has expired',
        );
      }
      // A forged uid names another owner: the policy refuses first.
      await refused(
        () => verify({ ...dict, uid: 5 }),
        'originating user is not allowed to operate on this API key',
        'API key verification failed. You are not allowed to operate on this API key.',
      );
      assert.equal((await verify(dict)).success, true, 'the real dict still verifies');
    });

    it('fails for dicts with missing or extra fields, wrong types or huge strings', async () => {
      const session = await openSession(server, 4);
      const dict = await keyOf(session);
      const { usa: _usa, ...missing } = dict;
      const malformed: Dict[] = [
        missing,
        { ...dict, extra: 1 },
        { ...dict, uid: '4' },
        { ...dict, uid: 4.5 },
        { ...dict, ver: '1' },
        { ...dict, tkn: 5 },
        { ...dict, tkn: 'short' },
        { ...dict, sub: [1] },
        { ...dict, iss: 'x'.repeat(5000) },
        { ...dict, exp: null },
        {},
      ];
      for (const bad of malformed) {
        await refused(
          () => verify(bad),
          'the API key dict is malformed: it must hold exactly the fields issued, with their types',
          'API key could not be verified.',
        );
      }
      await refused(
        () => verify({ ...dict, uid: 2 ** 40 }),
        'originating user is not allowed to operate on this API key',
      );
      assert.equal(server.logs.filter((l) => l.level === 'error').length, 0, 'no exception logged');
    });

    it("lets superusers verify others' keys; staff and other users may not", async () => {
      await insertUsers(server.app.store, [{ userId: 8, role: 'superuser' }]);
      const dict = await keyOf(await openSession(server, 4));
      assert.equal((await verify(dict, 8, 'superuser')).success, true);
      await refused(() => verify(dict, 6, 'staff'), 'originating user is not allowed to operate on this API key');
      await refused(() => verify(dict, 5), 'originating user is not allowed to operate on this API key');
      await refused(() => verify(dict, 4, 'staff'), 'user initiating request is not valid');
    });

    it('fails once the session is gone: logout, session-delete, session-delete-userid, expiry', async () => {
      const ended = async (end: (session: string) => Promise<unknown>): Promise<void> => {
        const session = await openSession(server, 4);
        const dict = await keyOf(session);
        assert.equal((await verify(dict)).success, true);
        await end(session);
        assert.equal(
          reason(await verify(dict)),
          'key validation failed, provided key does not match stored key or has expired',
        );
      };
      await ended((s) => server.call('user-logout', { session_token: s, user_id: 4 }));
      await ended((s) => server.call('session-delete', { session_token: s }));
      await ended((s) =>
        server.call('session-delete-userid', { session_token: s, user_id: 4, keep_current_session: false }),
      );
      const now = server.clock.now();
      await ended(() => {
        server.clock.set(now + 8 * DAY);
        return Promise.resolve();
      });
      server.clock.set(now);
    });
  });

  describe('apikey-revoke', () => {
    it('revokes the key (an expired one too); the dict must be the stored one', async () => {
      const session = await openSession(server, 4, 30);
      const dict = await keyOf(session, { expires_days: 1 });
      await refused(
        () => revoke({ ...dict, aud: 'other' }),
        'key validation failed, provided key does not match stored key or has expired',
      );
      await refused(() => revoke(dict, 5), 'originating user is not allowed to operate on this API key');
      const now = server.clock.now();
      server.clock.set(now + 2 * DAY);
      try {
        const reply = await revoke(dict);
        assert.equal(reply.success, true, JSON.stringify(reply));
        assert.deepEqual(reply.messages, ['API key revocation processed.']);
      } finally {
        server.clock.set(now);
      }
      assert.equal(
        reason(await verify(dict)),
        'key validation failed, provided key does not match stored key or has expired',
      );
      await refused(() => revoke(dict), 'key validation failed, provided key does not match stored key or has expired');
    });
  });
});
