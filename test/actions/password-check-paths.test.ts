/**
 * A failed password check must not tell whether the account exists: not by `user_id`, not by the
 * size of the encrypted reply, not by its timing. Timing is proven structurally here — every failing
 * path sends the same statements to the database and runs exactly one password verification — on
 * every database; the reliability suite measures the times themselves.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GOOD_PASSWORD, countingQueue, openSession, signUp, verifiedUser } from '../helpers/accounts.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { statementsOf } from '../helpers/statements.js';

const WRONG = 'not-the-password-9!';

interface Attempt {
  readonly statements: string[];
  readonly verifications: number;
  readonly reply: Record<string, unknown>;
  readonly bodyLength: number;
  readonly plaintextLength: number;
}

forEachDatabase((db) => {
  describe('failed password checks are indistinguishable', () => {
    let server: TestServer;
    const counter = countingQueue();
    let active: number;
    let locked: number;
    let inactive: number;

    before(async () => {
      server = await startTestServer({
        database: db,
        hashQueue: counter.queue,
        config: { userLockTries: 2, userLockTimeSeconds: 3600 },
      });
      active = await verifiedUser(server, 'active@example.org');
      locked = await verifiedUser(server, 'locked@example.org');
      inactive = await signUp(server, 'inactive@example.org');
      for (let i = 0; i < 3; i++) {
        await server.call('user-passcheck-nosession', { email: 'locked@example.org', password: WRONG });
      }
    });
    after(() => server.close());

    /** One request, with what it sent to the database and how many hashes it ran. */
    async function attempt(action: string, body: Record<string, unknown>): Promise<Attempt> {
      const runsBefore = counter.runs();
      let text = '';
      const statements = await statementsOf(async () => {
        const response = await server.post(
          server.seal({ request: action, body, reqid: 'same-reqid', client_ipaddr: '203.0.113.7' }),
        );
        assert.equal(response.status, 200);
        text = await response.text();
      });
      const reply = server.open(text) as Record<string, unknown>;
      return {
        statements,
        verifications: counter.runs() - runsBefore,
        reply,
        bodyLength: text.length,
        plaintextLength: Buffer.byteLength(JSON.stringify(reply)),
      };
    }

    /** The failing paths of one action must match the first one's statements, hashes and sizes. */
    function assertAlike(attempts: Record<string, Attempt>): void {
      const [first, ...rest] = Object.entries(attempts);
      assert.ok(first);
      const [firstName, model] = first;
      for (const [name, other] of Object.entries(attempts)) {
        assert.equal(other.reply['success'], false, name);
        assert.equal(other.verifications, 1, `${name}: exactly one password verification`);
        const response = other.reply['response'] as Record<string, unknown>;
        assert.equal(response['user_id'], null, `${name}: user_id is null`);
        for (const [item, value] of Object.entries(response)) {
          if (item !== 'pad' && item !== 'failure_reason') assert.equal(value, null, `${name}: ${item} is null`);
        }
      }
      assert.ok(
        model.statements.some((sql) => /^update\b/i.test(sql)),
        `${firstName} counts the failure: ${JSON.stringify(model.statements)}`,
      );
      for (const [name, other] of rest) {
        assert.deepEqual(other.statements, model.statements, `${name} runs the statements of ${firstName}`);
        assert.equal(other.plaintextLength, model.plaintextLength, `${name}: reply plaintext length`);
        assert.equal(other.bodyLength, model.bodyLength, `${name}: encrypted reply length`);
      }
    }

    it('user-login: unknown, wrong password, temporarily locked and inactive run alike', async () => {
      const login = async (email: string, password: string) =>
        attempt('user-login', { session_token: await openSession(server), email, password });
      const attempts = {
        unknown: await login('nobody@example.org', GOOD_PASSWORD),
        wrongPassword: await login('active@example.org', WRONG),
        temporarilyLocked: await login('locked@example.org', GOOD_PASSWORD),
        inactive: await login('inactive@example.org', GOOD_PASSWORD),
      };
      assertAlike(attempts);
      const noSession = await attempt('user-login', {
        session_token: 'x'.repeat(43),
        email: 'active@example.org',
        password: GOOD_PASSWORD,
      });
      assert.equal(noSession.verifications, 1, 'a missing session still costs one verification');
      assert.equal(noSession.plaintextLength, attempts.unknown.plaintextLength, 'session_not_found: same length');
    });

    it('user-passcheck-nosession: unknown, wrong password, temporarily locked and inactive run alike', async () => {
      const check = (email: string, password: string) => attempt('user-passcheck-nosession', { email, password });
      assertAlike({
        unknown: await check('nobody@example.org', GOOD_PASSWORD),
        wrongPassword: await check('active@example.org', WRONG),
        temporarilyLocked: await check('locked@example.org', GOOD_PASSWORD),
        inactive: await check('inactive@example.org', GOOD_PASSWORD),
      });
    });

    it("user-passcheck: wrong password, temporarily locked and inactive run alike on the session's user", async () => {
      const check = async (userId: number, password: string) =>
        attempt('user-passcheck', { session_token: await openSession(server, userId), password });
      assertAlike({
        wrongPassword: await check(active, WRONG),
        temporarilyLocked: await check(locked, GOOD_PASSWORD),
        inactive: await check(inactive, GOOD_PASSWORD),
      });
    });

    it('user-changepass-nosession: unknown, mismatched email, wrong password, locked and inactive run alike', async () => {
      const change = (userId: number, email: string, password: string) =>
        attempt('user-changepass-nosession', {
          user_id: userId,
          full_name: 'Jane Doe',
          email,
          current_password: password,
          new_password: 'quarry-lantern-mossy-77',
        });
      assertAlike({
        unknown: await change(999_999, 'nobody@example.org', GOOD_PASSWORD),
        mismatchedEmail: await change(active, 'locked@example.org', GOOD_PASSWORD),
        wrongPassword: await change(active, 'active@example.org', WRONG),
        temporarilyLocked: await change(locked, 'locked@example.org', GOOD_PASSWORD),
        inactive: await change(inactive, 'inactive@example.org', GOOD_PASSWORD),
      });
    });

    it("user-changepass: wrong password, locked and inactive run alike on the session's user", async () => {
      const change = async (userId: number, email: string, password: string) =>
        attempt('user-changepass', {
          user_id: userId,
          session_token: await openSession(server, userId),
          full_name: 'Jane Doe',
          email,
          current_password: password,
          new_password: 'quarry-lantern-mossy-77',
        });
      assertAlike({
        wrongPassword: await change(active, 'active@example.org', WRONG),
        mismatchedEmail: await change(active, 'locked@example.org', GOOD_PASSWORD),
        temporarilyLocked: await change(locked, 'locked@example.org', GOOD_PASSWORD),
        inactive: await change(inactive, 'inactive@example.org', GOOD_PASSWORD),
      });
    });

    it('user-delete: unknown, mismatched email, wrong password, locked and inactive run alike', async () => {
      const remove = (userId: number, email: string, password: string) =>
        attempt('user-delete', { user_id: userId, email, password });
      assertAlike({
        unknown: await remove(999_999, 'nobody@example.org', GOOD_PASSWORD),
        mismatchedEmail: await remove(active, 'locked@example.org', GOOD_PASSWORD),
        wrongPassword: await remove(active, 'active@example.org', WRONG),
        temporarilyLocked: await remove(locked, 'locked@example.org', GOOD_PASSWORD),
        inactive: await remove(inactive, 'inactive@example.org', GOOD_PASSWORD),
      });
    });

    it('never counts failures of unknown addresses against a real account', async () => {
      await verifiedUser(server, 'bystander@example.org');
      for (let i = 0; i < 3; i++) {
        await server.call('user-passcheck-nosession', { email: `ghost${i}@example.org`, password: WRONG });
      }
      const right = await server.call('user-passcheck-nosession', {
        email: 'bystander@example.org',
        password: GOOD_PASSWORD,
      });
      assert.equal(right.success, true, 'the account is not locked by unknown-address failures');
    });
  });
});
