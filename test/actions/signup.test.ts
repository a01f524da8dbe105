import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { forEachDatabase } from '../helpers/databases.js';
import { GOOD_PASSWORD, countingQueue, markVerified, storedUser } from '../helpers/accounts.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { sqlOf } from '../helpers/sql.js';

const CREATED = ['User account created. Please verify your email address to log in.'];
const HOUR = 3_600_000;

forEachDatabase((db) => {
  describe('user-new', () => {
    let server: TestServer;
    const counter = countingQueue();
    before(async () => {
      server = await startTestServer({ database: db, hashQueue: counter.queue });
    });
    after(() => server.close());

    const signUp = (body: Record<string, unknown>) =>
      server.call('user-new', { full_name: 'Jane Doe', password: GOOD_PASSWORD, ...body });

    it('creates a locked, inactive, unverified account with a UUIDv4 system id', async () => {
      const reply = await signUp({ email: 'Jane.Doe@Example.org', extra_info: { team: 'blue' } });
      assert.equal(reply.success, true);
      assert.deepEqual(reply.messages, CREATED);
      const { user_email, user_id, system_id, send_verification } = reply.response;
      assert.equal(user_email, 'jane.doe@example.org');
      assert.ok(user_id >= 4);
      assert.match(system_id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.equal(send_verification, true);
      const row = await storedUser(server, user_id);
      assert.equal(row['user_role'], 'locked');
      assert.equal(Boolean(row['is_active']), false);
      assert.equal(Boolean(row['email_verified']), false);
      assert.match(String(row['password']), /^\$argon2id\$/);
      assert.deepEqual(JSON.parse(String(row['extra_info'])), {
        team: 'blue',
        provenance: 'request-created',
        type: 'normal-user',
        verify_retry_wait: 6,
      });
    });

    it('stores the full name normalised but not escaped, and keeps a given system id', async () => {
      const reply = await signUp({
        email: 'obrien@example.org',
        full_name: "  Seán   O'Brien <3 ",
        system_id: 'ext-4711',
      });
      assert.equal(reply.success, true);
      assert.equal(reply.response.system_id, 'ext-4711');
      const row = await storedUser(server, reply.response.user_id);
      assert.equal(row['full_name'], "Seán O'Brien <3");
      const again = await signUp({ email: 'other@example.org', system_id: 'ext-4711' });
      assert.equal(!again.success && again.failure_reason, 'system_id is already in use');
    });

    it('refuses invalid, reserved and disposable addresses, changing nothing', async () => {
      const before = await server.digest();
      for (const email of [
        'not-an-email',
        'admin@example.org',
        'jane@mailinator.com',
        'jаne@example.org',
        'a@b@c.org',
      ]) {
        const reply = await signUp({ email });
        assert.equal(!reply.success && reply.failure_reason, 'invalid email', email);
        assert.match(reply.messages[0] ?? '', /doesn't seem to be a valid email address/);
      }
      assert.equal(await server.digest(), before);
    });

    it('refuses a full name holding a link', async () => {
      const reply = await signUp({ email: 'spam@example.org', full_name: 'Buy now at cheap-pills.com' });
      assert.equal(!reply.success && reply.failure_reason, 'invalid full name');
      assert.match(reply.messages[0] ?? '', /appears to contain an HTTP link/);
    });

    it('refuses an insecure password with the policy messages', async () => {
      const reply = await signUp({ email: 'weak@example.org', password: '12345678' });
      assert.equal(!reply.success && reply.failure_reason, 'password is insecure or invalid');
      assert.ok(reply.messages.includes('Your password cannot be all numbers.'));
      assert.equal(reply.response.user_email, 'weak@example.org');
    });

    it('answers a taken address with success false, "user exists" and the same messages, after the same work', async () => {
      const first = await signUp({ email: 'taken@example.org' });
      await markVerified(server, Number(first.response.user_id));
      const before = await server.digest();
      const runs = counter.runs();
      const again = await signUp({
        email: 'TAKEN@example.org',
        full_name: 'Someone Else',
        password: 'another-good-passphrase-7',
      });
      assert.equal(counter.runs() - runs, 1, 'one hash, as for a new account');
      assert.equal(again.success, false);
      assert.equal(!again.success && again.failure_reason, 'user exists');
      assert.deepEqual(again.messages, CREATED);
      assert.equal(again.response.send_verification, false);
      assert.equal(again.response.user_id, first.response.user_id);
      assert.equal(await server.digest(), before, 'a verified account is never overwritten');
    });

    it('lets a repeated sign-up take over an unverified account only after verify_retry_wait hours', async () => {
      const first = await signUp({ email: 'pending@example.org', verify_retry_wait: 2 });
      const userId = Number(first.response.user_id);
      const early = await signUp({ email: 'pending@example.org', full_name: 'New Name', verify_retry_wait: 2 });
      assert.equal(early.response.send_verification, false);
      assert.equal((await storedUser(server, userId))['full_name'], 'Jane Doe');
      server.clock.advance(2 * HOUR);
      const late = await signUp({ email: 'pending@example.org', full_name: 'New Name', verify_retry_wait: 2 });
      assert.equal(!late.success && late.failure_reason, 'user exists');
      assert.equal(late.response.send_verification, true);
      const row = await storedUser(server, userId);
      assert.equal(row['full_name'], 'New Name');
      assert.equal(row['system_id'], first.response.system_id, 'the account keeps its id');
    });

    it('makes one account of simultaneous sign-ups of one address', async () => {
      const replies = await Promise.all(Array.from({ length: 8 }, () => signUp({ email: 'race@example.org' })));
      assert.equal(replies.filter((r) => r.success).length, 1);
      assert.equal(replies.filter((r) => !r.success && r.failure_reason === 'user exists').length, 7);
      const rows = await sqlOf(server.app.store)('users').where('email', 'race@example.org');
      assert.equal(rows.length, 1);
    });

    it('refuses bad items: a 10 kB name, an injected email, a poisoned extra_info, a bad retry wait', async () => {
      const before = await server.digest();
      for (const body of [
        { email: 'x@example.org', full_name: 'x'.repeat(10_000) },
        { email: "x@example.org'; DROP TABLE users; --" },
        { email: 'x@example.org', extra_info: JSON.parse('{"__proto__": {"admin": true}}') as unknown },
        { email: 'x@example.org', verify_retry_wait: 0 },
        { email: 'x@example.org', system_id: 'has spaces' },
      ]) {
        const reply = await signUp(body);
        assert.equal(reply.success, false, JSON.stringify(body).slice(0, 60));
      }
      assert.equal(await server.digest(), before);
    });
  });
});
