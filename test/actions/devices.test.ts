/**
 * A user's devices (docs/design.md#devices): every session has a public session_id, which session-list shows with
 * where and when it was opened and last seen, and session-revoke ends by. Nobody reaches another user's sessions
 * but a superuser; nobody lists the system accounts' sessions, which are every anonymous visitor's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashToken } from '../../src/domain/tokens.js';
import { insertKeyRows, openSession, rowsOf, verifiedUser } from '../helpers/accounts.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

const MINUTE = 60_000;
const iso = (ms: number): string => new Date(ms).toISOString().replace('Z', '000+00:00');

forEachDatabase((db) => {
  let server: TestServer;
  let alice: number;
  let bob: number;
  before(async () => {
    server = await startTestServer({ database: db });
    alice = await verifiedUser(server, 'alice@example.org');
    bob = await verifiedUser(server, 'bob@example.org');
  });
  after(() => server.close());

  /** A session of `userId` from a device of its own; its token and public id. */
  async function device(userId: number | null, userAgent = 'Firefox on Linux'): Promise<{ token: string; id: string }> {
    const reply = await server.call('session-new', {
      ip_address: '198.51.100.7',
      user_agent: userAgent,
      user_id: userId,
      expires: 7,
      extra_info_json: {},
    });
    assert.ok(reply.success, JSON.stringify(reply));
    return { token: reply.response.session_token, id: reply.response.session_id };
  }

  const list = (userId: number, token: string, extra: Record<string, unknown> = {}) =>
    server.call('session-list', { user_id: userId, session_token: token, ...extra });
  const revoke = (userId: number, token: string, target: string) =>
    server.call('session-revoke', { user_id: userId, session_token: token, target_session_id: target });
  const exists = async (token: string): Promise<boolean> =>
    (await server.call('session-exists', { session_token: token })).success;
  const idsOf = (reply: Awaited<ReturnType<typeof list>>): string[] =>
    (reply.response.sessions ?? []).map((s) => s.session_id);

  describe('session ids', () => {
    it('are 22 random characters, neither the token nor its hash, in session-new and session_info', async () => {
      const a = await device(alice);
      const b = await device(alice);
      assert.match(a.id, /^[A-Za-z0-9_-]{22}$/);
      assert.notEqual(a.id, b.id);
      assert.ok(!a.token.includes(a.id) && !hashToken(a.token).includes(a.id));
      const info = await server.call('session-exists', { session_token: a.token });
      assert.ok(info.success);
      assert.equal(info.response.session_info?.session_id, a.id);
      assert.equal(info.response.session_info?.last_seen, info.response.session_info?.created);
    });

    it('are not given for a user who does not exist', async () => {
      const reply = await server.call('session-new', {
        ip_address: '::1',
        user_agent: 'x',
        user_id: 999_999,
        extra_info_json: {},
      });
      assert.equal(reply.success, false);
      assert.equal(reply.response.session_id, null);
    });
  });

  describe('last_seen', () => {
    it('moves when session-exists sees the session, at most once in five minutes', async () => {
      const { token } = await device(alice);
      const opened = server.clock.now();
      const seen = async (): Promise<string | undefined> => {
        const reply = await server.call('session-exists', { session_token: token });
        return reply.response.session_info?.last_seen;
      };
      server.clock.advance(4 * MINUTE);
      assert.equal(await seen(), iso(opened), 'four minutes on: not written');
      server.clock.advance(2 * MINUTE);
      const touched = server.clock.now();
      await seen();
      server.clock.advance(MINUTE);
      assert.equal(await seen(), iso(touched), 'six minutes on: written, and shown from then on');
    });
  });

  describe('session-list', () => {
    it("lists the user's live sessions, the most recently seen first, the asking one marked, no token", async () => {
      const user = await verifiedUser(server, 'lister@example.org');
      const phone = await device(user, 'Safari on iPhone');
      server.clock.advance(MINUTE);
      const laptop = await device(user, 'Firefox on Linux');
      const gone = await server.call('session-new', {
        ip_address: '192.0.2.1',
        user_agent: 'short-lived',
        user_id: user,
        expires: 1,
        extra_info_json: {},
      });
      await device(bob);
      server.clock.advance(2 * 86_400_000);
      server.clock.advance(6 * MINUTE);
      assert.ok(await exists(phone.token), 'the phone is seen again, and moves up');
      const reply = await list(user, laptop.token);
      assert.ok(reply.success, JSON.stringify(reply));
      assert.deepEqual(idsOf(reply), [phone.id, laptop.id], 'the expired session and bob’s are not there');
      const [first, second] = reply.response.sessions;
      assert.deepEqual(
        [first?.current, first?.user_agent, first?.ip_address, second?.current, second?.user_agent],
        [false, 'Safari on iPhone', '198.51.100.7', true, 'Firefox on Linux'],
      );
      assert.deepEqual(Object.keys(first ?? {}).sort(), [
        'created',
        'current',
        'expires',
        'ip_address',
        'last_seen',
        'session_id',
        'user_agent',
      ]);
      const text = JSON.stringify(reply);
      for (const t of [phone.token, laptop.token, gone.response.session_token ?? 'x']) {
        assert.ok(!text.includes(t) && !text.includes(hashToken(t)), 'no token and no token hash');
      }
    });

    it("lets a superuser list another user's sessions with target_userid", async () => {
      const admin = await openSession(server, 1);
      const b = await device(bob);
      const reply = await list(1, admin, { target_userid: bob });
      assert.ok(reply.success, JSON.stringify(reply));
      assert.ok(idsOf(reply).includes(b.id));
      assert.ok(reply.response.sessions.every((s) => !s.current));
    });

    it('refuses a session that does not exist, or is another user’s', async () => {
      const a = await device(alice);
      const none = await list(alice, 'no-such-token');
      assert.deepEqual(
        [none.success, !none.success && none.failure_reason],
        [false, 'session does not exist or expired'],
      );
      assert.equal(none.response.sessions, null);
      const mismatch = await list(bob, a.token);
      assert.deepEqual([mismatch.success, mismatch.response.sessions], [false, null]);
      assert.equal(!mismatch.success && mismatch.failure_reason, 'the session belongs to another user');
    });

    it("refuses another user's sessions to a user who is not a superuser", async () => {
      const a = await device(alice);
      const reply = await list(alice, a.token, { target_userid: bob });
      assert.deepEqual([reply.success, reply.response.sessions], [false, null]);
      assert.equal(!reply.success && reply.failure_reason, "user role is not 'superuser', required for this action");
    });

    it("never lists the system accounts' sessions: they are every anonymous visitor's", async () => {
      const visitor = await device(null, 'a visitor');
      await device(null, 'another visitor');
      const own = await list(2, visitor.token);
      assert.deepEqual(
        [own.success, !own.success && own.failure_reason],
        [false, "can't edit, lock or delete the system anonymous/locked accounts (2, 3)"],
      );
      const admin = await openSession(server, 1);
      for (const target of [2, 3]) {
        const reply = await list(1, admin, { target_userid: target });
        assert.deepEqual([reply.success, reply.response.sessions], [false, null], `target ${target}`);
      }
    });

    it('refuses bad input', async () => {
      const a = await device(alice);
      for (const body of [
        { session_token: a.token },
        { user_id: 'alice', session_token: a.token },
        { user_id: alice, session_token: a.token, target_userid: -1 },
        { user_id: alice, session_token: 7 },
      ]) {
        const reply = await server.call('session-list', body);
        assert.equal(reply.success, false, JSON.stringify(body));
        assert.equal(!reply.success && reply.failure_reason, 'invalid request parameters', JSON.stringify(reply));
      }
    });
  });

  describe('session-revoke', () => {
    it("ends one of the user's sessions, with its session-tied API keys, and leaves the others", async () => {
      const user = await verifiedUser(server, 'revoker@example.org');
      const here = await device(user);
      const lost = await device(user, 'the lost phone');
      await insertKeyRows(server.app.store, user, lost.token, server.clock.now());
      assert.equal((await rowsOf(server.app.store, user))['apikeys'], 1);
      const reply = await revoke(user, here.token, lost.id);
      assert.ok(reply.success, JSON.stringify(reply));
      assert.deepEqual(reply.messages, ['That session has ended.']);
      assert.equal(await exists(lost.token), false);
      assert.equal(await exists(here.token), true);
      assert.equal((await rowsOf(server.app.store, user))['apikeys'], 0);
      const again = await revoke(user, here.token, lost.id);
      assert.deepEqual(
        [again.success, !again.success && again.failure_reason],
        [false, 'no live session of that user has this session_id'],
      );
    });

    it('may end the asking session itself', async () => {
      const here = await device(alice);
      assert.ok((await revoke(alice, here.token, here.id)).success);
      assert.equal(await exists(here.token), false);
    });

    it("answers another user's session_id exactly as one that does not exist, and leaves it alive", async () => {
      const a = await device(alice);
      const b = await device(bob);
      const theirs = await revoke(alice, a.token, b.id);
      const unknown = await revoke(alice, a.token, 'AAAAAAAAAAAAAAAAAAAAAA');
      const strip = (r: typeof theirs): unknown => ({ ...r, reqid: null });
      assert.deepEqual(strip(theirs), strip(unknown));
      assert.equal(theirs.success, false);
      assert.equal(await exists(b.token), true);
    });

    it("lets a superuser end another user's session", async () => {
      const admin = await openSession(server, 1);
      const b = await device(bob);
      assert.ok((await revoke(1, admin, b.id)).success);
      assert.equal(await exists(b.token), false);
    });

    it('refuses the anonymous user, a wrong session and bad input', async () => {
      const visitor = await device(null);
      const other = await device(null);
      const anon = await revoke(2, visitor.token, other.id);
      assert.deepEqual(
        [anon.success, !anon.success && anon.failure_reason],
        [false, "can't edit, lock or delete the system anonymous/locked accounts (2, 3)"],
      );
      assert.equal(await exists(other.token), true);
      const a = await device(alice);
      const unknownToken = await revoke(alice, 'no-such-token', a.id);
      assert.equal(!unknownToken.success && unknownToken.failure_reason, 'session does not exist or expired');
      const notBobs = await revoke(bob, a.token, a.id);
      assert.equal(!notBobs.success && notBobs.failure_reason, 'the session belongs to another user');
      for (const body of [
        { user_id: alice, session_token: a.token },
        { user_id: alice, session_token: a.token, target_session_id: 'x'.repeat(65) },
        { user_id: alice, session_token: a.token, target_session_id: 5 },
      ]) {
        const reply = await server.call('session-revoke', body);
        assert.equal(!reply.success && reply.failure_reason, 'invalid request parameters', JSON.stringify(body));
      }
      assert.equal(await exists(a.token), true);
    });
  });

  describe('one user against another, with every combination of ids', () => {
    it('lists and ends only what the session’s own user owns', async () => {
      const users = [alice, bob];
      for (const owner of users) {
        for (const claimed of users) {
          for (const target of users) {
            const mine = await device(owner);
            const theirs = await device(target);
            const allowed = claimed === owner && target === owner;
            const what = `session of ${owner}, user_id ${claimed}, target ${target}`;
            const listed = await list(claimed, mine.token, target === claimed ? {} : { target_userid: target });
            assert.equal(listed.success, allowed, `list: ${what}`);
            const ended = await revoke(claimed, mine.token, theirs.id);
            assert.equal(ended.success, allowed, `revoke: ${what}`);
            assert.equal(await exists(theirs.token), !allowed, `still alive: ${what}`);
          }
        }
      }
    });
  });
});
