import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashToken } from '../../src/domain/tokens.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { sqlOf } from '../helpers/sql.js';

const DAY = 86_400_000;
forEachDatabase((db) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ database: db });
  });
  after(() => server.close());

  const newSession = (overrides: Record<string, unknown> = {}) =>
    server.call('session-new', {
      ip_address: '203.0.113.9',
      user_agent: 'Mozilla/5.0 (test)',
      user_id: 1,
      expires: 7,
      extra_info_json: { theme: 'dark' },
      ...overrides,
    });

  async function tokenOf(overrides: Record<string, unknown> = {}): Promise<string> {
    const reply = await newSession(overrides);
    assert.ok(reply.success, JSON.stringify(reply));
    return reply.response.session_token;
  }

  describe('session-new', () => {
    it('opens a session and returns a 43-character token and its expiry', async () => {
      const reply = await newSession();
      assert.equal(reply.success, true);
      assert.match(reply.response.session_token, /^[A-Za-z0-9_-]{43}$/);
      assert.equal(
        reply.response.expires,
        new Date(server.clock.now() + 7 * DAY).toISOString().replace('Z', '000+00:00'),
      );
      assert.deepEqual(reply.messages, ['Generated session_token successfully. Session initiated.']);
    });

    it('stores only the SHA-256 hash of the token', async () => {
      const token = await tokenOf();
      const rows = await sqlOf(server.app.store)('sessions').select('token_hash');
      assert.ok(rows.some((r: { token_hash: string }) => r.token_hash === hashToken(token)));
      const dump = JSON.stringify(await sqlOf(server.app.store)('sessions').select('*'));
      assert.ok(!dump.includes(token), 'the token itself is nowhere in the table');
    });

    it('gives a null user_id to the anonymous user (2)', async () => {
      const token = await tokenOf({ user_id: null });
      const info = await server.call('session-exists', { session_token: token });
      assert.equal(info.success && info.response.session_info?.user_id, 2);
    });

    it('takes the expiry as days, as an ISO datetime, or from sessionexpiry when absent', async () => {
      const now = server.clock.now();
      const days = await newSession({ expires: 1 });
      assert.equal(days.response.expires, new Date(now + DAY).toISOString().replace('Z', '000+00:00'));
      // A naive datetime with microseconds, as the reference's clients send it (UTC).
      const at = new Date(Math.floor(now / 1000) * 1000 + 100 * DAY + 678);
      const naive = at.toISOString().replace('Z', '901');
      const iso = await newSession({ expires: naive });
      assert.equal(iso.response.expires, at.toISOString().replace('Z', '000+00:00'));
      const shifted = new Date(at.getTime() + 3_600_000).toISOString().replace('Z', '+01:00');
      const withOffset = await newSession({ expires: shifted });
      assert.equal(withOffset.response.expires, at.toISOString().replace('Z', '000+00:00'));
      const body: Record<string, unknown> = { ip_address: '::1', user_agent: '', user_id: 1, extra_info_json: null };
      const absent = await server.call('session-new', body);
      assert.equal(absent.response.expires, new Date(now + 30 * DAY).toISOString().replace('Z', '000+00:00'));
    });

    it('stores IPv6 addresses in their canonical form', async () => {
      const token = await tokenOf({ ip_address: '2001:DB8:0:0:0:0:0:1' });
      const mapped = await tokenOf({ ip_address: '::FFFF:192.0.2.1' });
      const a = await server.call('session-exists', { session_token: token });
      const b = await server.call('session-exists', { session_token: mapped });
      assert.equal(a.success && a.response.session_info?.ip_address, '2001:db8::1');
      assert.equal(b.success && b.response.session_info?.ip_address, '::ffff:192.0.2.1');
    });

    it('fails for a user that does not exist', async () => {
      const before = await server.digest();
      const reply = await newSession({ user_id: 999_999 });
      assert.equal(reply.success, false);
      assert.equal(!reply.success && reply.failure_reason, 'user does not exist');
      assert.deepEqual(reply.messages, ['Could not create a new session.']);
      assert.equal(reply.response.session_token, null);
      assert.equal(await server.digest(), before);
    });

    it('refuses an expiry in the past, too far ahead, or not a datetime', async () => {
      for (const expires of ['2001-01-01T00:00:00', '9999-01-01T00:00:00', 'next tuesday', 0, -1, 3651, 2.5, true]) {
        const reply = await newSession({ expires });
        assert.equal(reply.success, false, String(expires));
        assert.equal(!reply.success && reply.failure_reason, 'invalid request parameters');
        const problems = (reply.response as { problems?: Array<{ param: string }> }).problems;
        assert.deepEqual(
          problems?.map((p) => p.param),
          ['expires'],
          String(expires),
        );
      }
    });

    it('lists every bad item', async () => {
      const reply = await server.call('session-new', { ip_address: 'nope', user_id: '1', extra_info_json: [] });
      assert.equal(reply.success, false);
      assert.deepEqual(reply.messages, ["request 'session-new' has invalid parameters"]);
      assert.deepEqual((reply.response as { problems?: unknown }).problems, [
        { param: 'ip_address', problem: 'invalid value', required_type: 'str' },
        { param: 'user_agent', problem: 'missing', required_type: 'str' },
        { param: 'user_id', problem: 'incorrect type', required_type: ['int', 'None'] },
        { param: 'extra_info_json', problem: 'incorrect type', required_type: ['dict', 'None'] },
      ]);
    });

    it('refuses a boolean user_id (an int is not a bool)', async () => {
      const reply = await newSession({ user_id: true });
      assert.equal(reply.success, false);
      assert.deepEqual((reply.response as { problems?: unknown }).problems, [
        { param: 'user_id', problem: 'incorrect type', required_type: ['int', 'None'] },
      ]);
    });

    it('ignores unknown extra items', async () => {
      const reply = await newSession({ surprise: { deep: [1, 2, 3] }, pii_salt: 'x' });
      assert.equal(reply.success, true);
    });
  });

  describe('session-exists', () => {
    it("returns session_info with exactly the reference keys, and the session's public id and last_seen", async () => {
      const token = await tokenOf({ ip_address: '198.51.100.1', extra_info_json: { cart: [1, 2] } });
      const reply = await server.call('session-exists', { session_token: token });
      assert.equal(reply.success, true);
      assert.deepEqual(reply.messages, ['Session look up successful.']);
      const info = reply.success ? reply.response.session_info : null;
      assert.ok(info);
      assert.deepEqual(Object.keys(info).sort(), [
        'created',
        'created_on',
        'email',
        'email_verified',
        'emailverify_sent_datetime',
        'expires',
        'extra_info',
        'extra_info_json',
        'full_name',
        'ip_address',
        'is_active',
        'last_login_success',
        'last_login_try',
        'last_seen',
        'session_id',
        'session_token',
        'system_id',
        'user_agent',
        'user_id',
        'user_role',
      ]);
      assert.equal(info.user_id, 1);
      assert.equal(info.user_role, 'superuser');
      assert.equal(info.email, 'admin@example.org');
      assert.equal(info.session_token, token);
      assert.equal(info.ip_address, '198.51.100.1');
      assert.equal(info.user_agent, 'Mozilla/5.0 (test)');
      assert.deepEqual(info.extra_info_json, { cart: [1, 2] });
      assert.equal(info.is_active, true);
      assert.equal(info.email_verified, true);
      assert.match(info.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
      assert.ok(!('password' in info));
    });

    it('fails once the session has expired', async () => {
      const token = await tokenOf({ expires: 1 });
      server.clock.advance(DAY - 1);
      assert.equal((await server.call('session-exists', { session_token: token })).success, true);
      server.clock.advance(1);
      const reply = await server.call('session-exists', { session_token: token });
      assert.equal(reply.success, false);
      assert.equal(!reply.success && reply.failure_reason, 'session does not exist or expired');
      assert.equal(reply.response.session_info, null);
    });

    it('fails for unknown, empty and odd tokens', async () => {
      for (const session_token of ['', 'x', 'A'.repeat(43), "' OR 1=1 --", 'ü'.repeat(500)]) {
        const reply = await server.call('session-exists', { session_token });
        assert.equal(reply.success, false, session_token);
        assert.deepEqual(reply.messages, ['Session look up failed.']);
      }
    });

    it('refuses tokens that are not bounded text', async () => {
      for (const session_token of [null, 1, {}, [], 'x'.repeat(513), 'a\u0000b', '\ud800']) {
        const reply = await server.call('session-exists', { session_token });
        assert.equal(
          !reply.success && reply.failure_reason,
          'invalid request parameters',
          JSON.stringify(session_token),
        );
      }
    });
  });

  describe('session-delete', () => {
    it('deletes the session', async () => {
      const token = await tokenOf();
      const reply = await server.call('session-delete', { session_token: token });
      assert.equal(reply.success, true);
      assert.deepEqual(reply.messages, ['Session delete processed, success: True.']);
      assert.equal((await server.call('session-exists', { session_token: token })).success, false);
    });

    it('fails for a session that does not exist, changing nothing', async () => {
      const before = await server.digest();
      const reply = await server.call('session-delete', { session_token: 'gone' });
      assert.equal(reply.success, false);
      assert.equal(!reply.success && reply.failure_reason, 'session does not exist or expired');
      assert.deepEqual(reply.messages, ['Session delete processed, success: False.']);
      assert.equal(await server.digest(), before);
    });

    it('refuses a missing token', async () => {
      const reply = await server.call('session-delete', {});
      assert.equal(!reply.success && reply.failure_reason, 'invalid request parameters');
    });
  });

  describe('session-delete-userid', () => {
    it('deletes every session of the user but the current one when keep_current_session is true', async () => {
      const [a, b, c] = [await tokenOf({ user_id: 2 }), await tokenOf({ user_id: 2 }), await tokenOf({ user_id: 2 })];
      const other = await tokenOf({ user_id: 1 });
      const reply = await server.call('session-delete-userid', {
        session_token: a,
        user_id: 2,
        keep_current_session: true,
      });
      assert.equal(reply.success, true);
      assert.ok(reply.success && reply.response.deleted_sessions >= 2);
      assert.deepEqual(reply.messages, ['Sessions delete processed. Success: True.']);
      assert.equal((await server.call('session-exists', { session_token: a })).success, true);
      assert.equal((await server.call('session-exists', { session_token: b })).success, false);
      assert.equal((await server.call('session-exists', { session_token: c })).success, false);
      assert.equal(
        (await server.call('session-exists', { session_token: other })).success,
        true,
        "other users' sessions stay",
      );
    });

    it('deletes them all, the current one included, when keep_current_session is false', async () => {
      const [a, b] = [await tokenOf({ user_id: 2 }), await tokenOf({ user_id: 2 })];
      const reply = await server.call('session-delete-userid', {
        session_token: a,
        user_id: 2,
        keep_current_session: false,
      });
      assert.equal(reply.success, true);
      for (const token of [a, b])
        assert.equal((await server.call('session-exists', { session_token: token })).success, false);
    });

    it('fails when the user has no session to delete', async () => {
      const before = await server.digest();
      const reply = await server.call('session-delete-userid', {
        session_token: 'x',
        user_id: 3,
        keep_current_session: false,
      });
      assert.equal(reply.success, false);
      assert.equal(!reply.success && reply.failure_reason, 'no sessions matched');
      assert.deepEqual(reply.messages, ['Sessions delete processed. Success: False.']);
      assert.equal(await server.digest(), before);
    });

    it('refuses a non-boolean keep_current_session and out-of-range ids', async () => {
      for (const body of [
        { session_token: 'x', user_id: 2, keep_current_session: 'true' },
        { session_token: 'x', user_id: 2, keep_current_session: 1 },
        { session_token: 'x', user_id: 0, keep_current_session: true },
        { session_token: 'x', user_id: 2 ** 31, keep_current_session: true },
        { session_token: 'x', keep_current_session: true },
      ]) {
        const reply = await server.call('session-delete-userid', body);
        assert.equal(!reply.success && reply.failure_reason, 'invalid request parameters', JSON.stringify(body));
      }
    });
  });

  describe('internal-session-edit', () => {
    it('adds, edits and deletes items of extra_info_json', async () => {
      const token = await tokenOf({ extra_info_json: { a: 1, b: 2 } });
      const reply = await server.call('internal-session-edit', {
        target_session_token: token,
        update_dict: { a: 10, b: '__delete__', c: { nested: true }, absent: '__delete__' },
      });
      assert.equal(reply.success, true);
      assert.deepEqual(reply.messages, ['Session extra_info update successful.']);
      const info = reply.success ? reply.response.session_info : null;
      assert.deepEqual(info?.extra_info_json, { a: 10, c: { nested: true } });
      assert.deepEqual(Object.keys(info ?? {}).sort(), [
        'created',
        'expires',
        'extra_info_json',
        'ip_address',
        'session_token',
        'user_agent',
        'user_id',
      ]);
      const stored = await server.call('session-exists', { session_token: token });
      assert.deepEqual(stored.success && stored.response.session_info?.extra_info_json, { a: 10, c: { nested: true } });
    });

    it('keeps every item when edits of one session run concurrently', async () => {
      const token = await tokenOf({ extra_info_json: {} });
      const edits = Array.from({ length: 20 }, (_, i) =>
        server.call('internal-session-edit', { target_session_token: token, update_dict: { [`k${i}`]: i } }),
      );
      for (const reply of await Promise.all(edits)) assert.equal(reply.success, true);
      const stored = await server.call('session-exists', { session_token: token });
      assert.equal(Object.keys((stored.success && stored.response.session_info?.extra_info_json) || {}).length, 20);
    });

    it('fails for a missing or expired session', async () => {
      const reply = await server.call('internal-session-edit', { target_session_token: 'nope', update_dict: { a: 1 } });
      assert.equal(!reply.success && reply.failure_reason, 'session does not exist or expired');
      assert.deepEqual(reply.messages, ['Session extra_info update failed.']);
    });

    it('fails when the merged dict would exceed its bounds, changing nothing', async () => {
      const token = await tokenOf({
        extra_info_json: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`a${i}`, i])),
      });
      const before = await server.digest();
      const reply = await server.call('internal-session-edit', {
        target_session_token: token,
        update_dict: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`b${i}`, i])),
      });
      assert.equal(!reply.success && reply.failure_reason, 'the merged dict would exceed its size or depth bounds');
      assert.equal(await server.digest(), before);
    });

    it('refuses an empty, non-dict or poisoned update_dict', async () => {
      const token = await tokenOf();
      for (const update_dict of [{}, [], 'x', null, JSON.parse('{"__proto__": {"admin": true}}'), { constructor: 1 }]) {
        const reply = await server.call('internal-session-edit', { target_session_token: token, update_dict });
        assert.equal(!reply.success && reply.failure_reason, 'invalid request parameters', JSON.stringify(update_dict));
      }
    });
  });
});
