import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { fernetEncrypt } from '../../src/protocol/index.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer, TestServerOptions } from '../helpers/server.js';
import { insertUsers, updateUser } from '../helpers/users.js';

const GRANTED = 'Access request check successful. Access granted: True.';
const DENIED = 'Access request check successful. Access granted: False.';
const PASSED = 'Limit check successful. Limit check passed: True.';
const FAILED = 'Limit check successful. Limit check passed: False.';

// Users beside the seeded 1 (superuser), 2 (anonymous, active) and 3 (locked, inactive).
const ALICE = 1001; // authenticated
const BOB = 1002; // authenticated, owns things
const CAROL = 1003; // authenticated, inactive
const STAFF = 1004;
const EDITOR = 1005; // holds a role the policy lacks
const DAVE = 1006; // authenticated, items are shared with him

interface Explained {
  explanation: { stage: string; check: string; reason: string; policy: string[] };
  relation?: string | null;
  problems?: Array<{ param: string; problem: string }>;
}

/** Both actions over the real protocol, on every database. */
function authorizationSuite(options: TestServerOptions = {}): void {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(options);
    await insertUsers(server.app.store, [
      { userId: ALICE, role: 'authenticated' },
      { userId: BOB, role: 'authenticated' },
      { userId: CAROL, role: 'authenticated', active: false },
      { userId: STAFF, role: 'staff' },
      { userId: EDITOR, role: 'editor' },
      { userId: DAVE, role: 'authenticated' },
    ]);
  });
  after(() => server.close());

  const access = (body: Record<string, unknown>) =>
    server.call('user-check-access', {
      user_id: ALICE,
      user_role: 'authenticated',
      action: 'view',
      target_name: 'dataset',
      target_owner: BOB,
      target_visibility: 'public',
      target_sharedwith: '',
      ...body,
    });

  const limit = (body: Record<string, unknown>) =>
    server.call('user-check-limit', {
      user_id: ALICE,
      user_role: 'authenticated',
      limit_name: 'max_requests',
      value_to_check: 10,
      ...body,
    });

  async function denied(body: Record<string, unknown>, reason: string, check?: string): Promise<Explained> {
    const reply = await access(body);
    assert.equal(reply.success, false, JSON.stringify(reply));
    assert.equal(!reply.success && reply.failure_reason, reason, JSON.stringify(reply.response));
    assert.deepEqual(reply.messages, [DENIED]);
    const response = reply.response as unknown as Explained;
    if (check !== undefined) assert.equal(response.explanation.check, check, response.explanation.reason);
    return response;
  }

  describe('user-check-access', () => {
    it('grants what the policy allows, explaining the rule that decided', async () => {
      const reply = await access({ action: 'edit', target_owner: ALICE });
      assert.equal(reply.success, true, JSON.stringify(reply));
      assert.deepEqual(reply.messages, [GRANTED]);
      assert.deepEqual(reply.response, {
        relation: 'owner',
        explanation: {
          stage: 'policy',
          check: 'allowed-for-owned',
          reason:
            '"edit" is allowed: user 1001 owns the item; the role "authenticated" can own "dataset" items, and both its allowed_actions_for_owned and the item\'s valid_role_actions include the action',
          policy: [
            '/role_policy/authenticated/can_own_items',
            '/role_policy/authenticated/allowed_actions_for_owned',
            '/item_policy/dataset/valid_role_actions',
          ],
        },
      });
      const superuser = await access({
        user_id: 1,
        user_role: 'superuser',
        action: 'delete',
        target_name: 'user',
        target_visibility: 'private',
      });
      assert.equal(superuser.success, true);
      const staff = await access({ user_id: STAFF, user_role: 'staff', action: 'list', target_visibility: 'private' });
      assert.equal(staff.success, true);
    });

    it('denies what the policy does not allow, with a generic message and the exact check', async () => {
      const response = await denied({ target_visibility: 'private' }, 'action not permitted', 'relationship-gate');
      assert.equal(response.relation, 'other');
      assert.match(response.explanation.reason, /private and user 1001 does not own it/);
      await denied({ action: 'edit' }, 'action not permitted', 'not-allowed-for-other');
      await denied({ target_name: 'object', target_owner: ALICE }, 'action not permitted', 'role-cannot-own-item');
      await denied(
        { target_name: 'session', target_visibility: 'private' },
        'action not permitted',
        'role-invalid-for-item',
      );
      await denied(
        { user_id: 3, user_role: 'locked', target_owner: 3 },
        'action not permitted',
        'role-invalid-for-item',
      );
    });

    it('opens shared items to the listed users, and to everyone when the anonymous user 2 is listed', async () => {
      const shared = { action: 'edit', target_visibility: 'shared' };
      assert.equal((await access({ ...shared, target_sharedwith: `${DAVE}, ${ALICE}` })).success, true);
      assert.equal((await access({ ...shared, target_sharedwith: ' 2 ' })).success, true);
      await denied({ ...shared, target_sharedwith: `${DAVE}` }, 'action not permitted', 'relationship-gate');
      await denied({ ...shared, target_sharedwith: 'none' }, 'action not permitted', 'relationship-gate');
      await denied({ ...shared, target_sharedwith: ' , , ' }, 'action not permitted', 'relationship-gate');
    });

    it('denies names the policy lacks with a clear reason, never an exception', async () => {
      for (const role of ['ghost', 'constructor', '__proto__', 'toString', 'SUPERUSER', '']) {
        await denied({ user_role: role }, 'role not in policy', 'unknown-role');
      }
      for (const [field, value, check] of [
        ['target_name', 'all', 'unknown-item'],
        ['target_name', 'hasOwnProperty', 'unknown-item'],
        ['action', 'manage', 'unknown-action'],
        ['action', '__proto__', 'unknown-action'],
        ['target_visibility', 'team', 'unknown-visibility'],
      ] as const) {
        const response = await denied({ [field]: value }, 'item, action or visibility not in policy', check);
        assert.ok(response.explanation.reason.includes(`"${value}" is not in the policy`));
      }
    });

    it('denies a user holding a role the policy lacks (docs/design.md#roles-the-policy-lacks)', async () => {
      const response = await denied({ user_id: EDITOR, user_role: 'editor' }, 'role not in policy', 'unknown-role');
      assert.equal(response.explanation.reason, 'the role "editor" is not in the policy');
    });

    it('then requires the caller to exist, with the role it claims, and be active', async () => {
      const forged = await denied(
        { user_role: 'superuser', target_name: 'user', target_visibility: 'private' },
        'user initiating request is not valid',
        'caller',
      );
      assert.equal(forged.explanation.stage, 'database');
      assert.equal(forged.explanation.reason, 'user 1001 holds the role "authenticated", not "superuser"');
      const missing = await denied({ user_id: 999_999 }, 'user initiating request is not valid', 'caller');
      assert.equal(missing.explanation.reason, 'user 999999 does not exist');
      const inactive = await denied({ user_id: CAROL }, 'user initiating request is not valid', 'caller');
      assert.equal(inactive.explanation.reason, 'user 1003 is not active');
    });

    it('then requires the owner and every shared-with user to exist and be active', async () => {
      const reason = 'users specified as owner or shared-with not found';
      const owner = await denied({ target_owner: 999_999 }, reason, 'owner-and-shared-with');
      assert.match(owner.explanation.reason, /user 999999 does not or is inactive$/);
      await denied({ target_owner: CAROL }, reason, 'owner-and-shared-with');
      const shared = await denied(
        { action: 'edit', target_visibility: 'shared', target_sharedwith: `${ALICE},${CAROL},3,888888` },
        reason,
        'owner-and-shared-with',
      );
      assert.match(shared.explanation.reason, /user 1003, 3, 888888 do not or are inactive$/);
      // The longest list allowed still takes one query.
      const many = Array.from({ length: 1000 }, (_, i) => 5000 + i).join(' , ');
      const thousand = await denied({ target_sharedwith: many }, reason, 'owner-and-shared-with');
      assert.match(thousand.explanation.reason, /user 5000, .*, 5009 and 990 more do not or are inactive$/);
    });

    it('sees a lock, an unlock and a role change in the very next check', async () => {
      const body = { user_id: DAVE, action: 'edit', target_owner: DAVE };
      assert.equal((await access(body)).success, true);
      await updateUser(server.app.store, DAVE, { role: 'locked', active: false });
      await denied(body, 'user initiating request is not valid', 'caller');
      await denied({ ...body, user_role: 'locked' }, 'action not permitted', 'role-invalid-for-item');
      await updateUser(server.app.store, DAVE, { role: 'authenticated', active: true });
      assert.equal((await access(body)).success, true);
      await updateUser(server.app.store, DAVE, { role: 'staff' });
      await denied(body, 'user initiating request is not valid', 'caller');
      assert.equal((await access({ ...body, user_role: 'staff', action: 'change_owner' })).success, true);
      await updateUser(server.app.store, DAVE, { role: 'authenticated' });
      // The owner too: Bob's lock shows at once.
      await updateUser(server.app.store, BOB, { active: false });
      await denied({}, 'users specified as owner or shared-with not found', 'owner-and-shared-with');
      await updateUser(server.app.store, BOB, { active: true });
      assert.equal((await access({})).success, true);
    });

    it('refuses shared-with lists that are not ids, or too many, naming target_sharedwith', async () => {
      const tooMany = Array.from({ length: 1001 }, (_, i) => i + 1).join(',');
      for (const list of ['a,b', '1.5', '-1', '0', '1;2', 'none,3', '2147483648', tooMany, ' ,'.repeat(20_000)]) {
        const reply = await access({ target_sharedwith: list });
        assert.equal(reply.success, false, list.slice(0, 30));
        assert.equal(!reply.success && reply.failure_reason, 'invalid request parameters');
        const response = reply.response as unknown as Explained;
        assert.deepEqual(
          response.problems?.map((p) => `${p.param}: ${p.problem}`),
          ['target_sharedwith: invalid value'],
        );
        if (list.length <= 32_768) {
          assert.equal(response.explanation.stage, 'request');
          assert.match(response.explanation.reason, /^target_sharedwith: /);
        }
      }
    });

    it('changes nothing in the database, whatever it answers', async () => {
      const digest = await server.digest();
      await access({});
      await access({ user_role: 'ghost' });
      await access({ target_owner: 999_999 });
      assert.equal(await server.digest(), digest);
    });
  });

  describe('user-check-limit', () => {
    it("passes a value under the role's limit, explaining the comparison", async () => {
      const reply = await limit({ value_to_check: 499_999.9 });
      assert.equal(reply.success, true, JSON.stringify(reply));
      assert.deepEqual(reply.messages, [PASSED]);
      assert.deepEqual(reply.response, {
        explanation: {
          stage: 'policy',
          check: 'limit-passed',
          reason:
            'the role "authenticated" has max_requests = 500000 of kind "max" (int, passes when value < limit): 499999 < 500000',
          policy: ['/role_policy/authenticated/limits/max_requests', '/limits/max'],
        },
      });
      const superuser = await limit({ user_id: 1, user_role: 'superuser', value_to_check: 100 });
      assert.equal(superuser.success, true);
    });

    it('fails a value at or over the limit', async () => {
      for (const [body, value] of [
        [{}, 500_000],
        [{ user_id: 1, user_role: 'superuser' }, 100_000_000],
        [{ user_id: 1, user_role: 'superuser', limit_name: 'max_requests_per_minute' }, 10_000_000],
      ] as const) {
        const reply = await limit({ ...body, value_to_check: value });
        assert.equal(reply.success, false);
        assert.equal(!reply.success && reply.failure_reason, 'user is over limit');
        assert.deepEqual(reply.messages, [FAILED]);
        assert.equal((reply.response as unknown as Explained).explanation.check, 'limit-failed');
      }
    });

    it('passes a limit the role does not have, as the reference does', async () => {
      const reply = await limit({ limit_name: 'max_uploads', value_to_check: 1e300 });
      assert.equal(reply.success, true);
      assert.equal((reply.response as unknown as Explained).explanation.check, 'no-such-limit');
    });

    it('fails a role the policy lacks', async () => {
      const reply = await limit({ user_id: EDITOR, user_role: 'editor' });
      assert.equal(!reply.success && reply.failure_reason, 'role not in policy');
      assert.deepEqual(reply.messages, [FAILED]);
    });

    it('then requires the caller to exist, with the role it claims, and be active', async () => {
      for (const [body, reason] of [
        [{ user_id: 999_999 }, 'user 999999 does not exist'],
        [{ user_id: CAROL }, 'user 1003 is not active'],
        [{ user_role: 'staff' }, 'user 1001 holds the role "authenticated", not "staff"'],
      ] as const) {
        const reply = await limit(body);
        assert.equal(!reply.success && reply.failure_reason, 'user attempting access not found', reason);
        assert.deepEqual(reply.messages, [FAILED]);
        assert.equal((reply.response as unknown as Explained).explanation.reason, reason);
      }
    });

    it('refuses a value_to_check that is not a finite number', async () => {
      for (const value of ['100', '1e3', 'NaN', true, null, [], {}]) {
        const reply = await limit({ value_to_check: value });
        assert.equal(!reply.success && reply.failure_reason, 'invalid request parameters', JSON.stringify(value));
        const problems = (reply.response as unknown as Explained).problems ?? [];
        assert.deepEqual(
          problems.map((p) => `${p.param}: ${p.problem}`),
          ['value_to_check: incorrect type'],
        );
      }
      // JSON has no NaN or infinity, but 1e999 parses to Infinity: it must not reach the comparison.
      const text = JSON.stringify({
        request: 'user-check-limit',
        body: { user_id: ALICE, user_role: 'authenticated', limit_name: 'max_requests', value_to_check: 0 },
        reqid: 'inf',
        client_ipaddr: '192.0.2.1',
      }).replace('"value_to_check":0', '"value_to_check":-1e999');
      const key = server.keyring.keys[0];
      assert.ok(key);
      const token = fernetEncrypt(key, Buffer.from(text), Math.floor(server.clock.now() / 1000), randomBytes(16));
      const response = await server.post(Buffer.from(token).toString('base64'));
      assert.equal(response.status, 200);
      const reply = server.open(await response.text()) as { success: boolean; failure_reason?: string };
      assert.equal(reply.success, false);
      assert.equal(reply.failure_reason, 'invalid request parameters');
    });
  });
}

forEachDatabase((db) => {
  authorizationSuite({ database: db });
});
