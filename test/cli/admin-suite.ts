/**
 * The admin command line on one database, through the real binary (src/bin.ts): every command, the two
 * output forms, passwords from stdin only, refusals with their exit codes, and a change that a server
 * running beside it sees at once. One test file per database (admin-sqlite.test.ts, admin-pg.test.ts,
 * admin-mysql.test.ts), so the three chains of child processes run side by side.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, it } from 'node:test';
import { createClient } from '../../src/client/index.js';
import { generateFernetKey } from '../../src/protocol/index.js';
import type { UserInfoDict } from '../../src/protocol/index.js';
import { urlOf } from '../helpers/databases.js';
import type { TestDatabase } from '../helpers/databases.js';
import { tempDir } from '../helpers/temp.js';
import { runAuthsvc, startAuthsvc } from './spawn.js';
import type { Finished } from './spawn.js';

const PASSWORD = 'Tangerine-Orbit-Lantern-42';
const NEW_PASSWORD = 'Quiet-Harbour-Meadow-1987';

const parseUsers = (result: Finished): UserInfoDict[] => JSON.parse(result.stdout) as UserInfoDict[];
const parseUser = (result: Finished): UserInfoDict & { locked?: boolean } =>
  JSON.parse(result.stdout) as UserInfoDict & { locked?: boolean };

export function expectExit(result: Finished, code: number, what: string): void {
  assert.equal(
    result.code,
    code,
    `${what}: exit ${String(result.code)}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`,
  );
}

/** The database commands' tests, inside forEachDatabase. */
export function adminSuite(db: TestDatabase): void {
  const basedir = tempDir(`admin-${db.kind}`);
  let env: Record<string, string>;
  const admin = (args: string[], input?: string): Promise<Finished> =>
    runAuthsvc(args, { cwd: basedir, env, ...(input === undefined ? {} : { input }) });

  before(async () => {
    env = {
      AUTHSVC_SECRET: generateFernetKey(),
      AUTHSVC_PIISALT: 'admin-cli-salt',
      AUTHSVC_AUTHDB: urlOf(await db.fresh()),
      AUTHSVC_BASEDIR: basedir,
      AUTHSVC_WORKERS: '1',
      // Low-cost hashing: the tests are about the command line, not the hash.
      AUTHSVC_PASSHASH: 'argon2id:m=1024,t=1,p=1',
    };
  });

  it('lists the users as one JSON array of user info dicts, and as a table', async () => {
    const json = await admin(['user', 'list', '--json']);
    expectExit(json, 0, 'user list --json');
    const users = parseUsers(json);
    assert.deepEqual(
      users.map((u) => u.user_id),
      [1, 2, 3],
    );
    assert.equal(users[0]?.user_role, 'superuser');
    assert.ok('email_verified' in (users[0] ?? {}) && 'created_on' in (users[0] ?? {}));
    const human = await admin(['user', 'list']);
    expectExit(human, 0, 'user list');
    assert.match(human.stdout, /^user_id +email +full_name +user_role/);
    assert.match(human.stdout, /^1 +root@localhost +Superuser account +superuser/m);
  });

  it('adds a verified, active user with the password piped on stdin, and shows them by id and by email', async () => {
    const added = await admin(
      ['user', 'add', 'alice@example.org', '--name', 'Alice Liddell', '--role=staff', '--json'],
      `${PASSWORD}\n`,
    );
    expectExit(added, 0, 'user add');
    const alice = parseUser(added);
    assert.equal(alice.email, 'alice@example.org');
    assert.equal(alice.user_role, 'staff');
    assert.equal(alice.is_active, true);
    assert.equal(alice.email_verified, true);
    assert.doesNotMatch(added.stdout + added.stderr, new RegExp(PASSWORD));
    // Each change is audited through the actions' own sink.
    assert.match(added.stderr, /"audit":"user.signed-up"/);
    assert.match(added.stderr, /"audit":"user.edited"/);

    const byId = await admin(['user', 'show', String(alice.user_id), '--json']);
    expectExit(byId, 0, 'user show id');
    assert.deepEqual(parseUser(byId), alice);
    const byEmail = await admin(['user', 'show', 'ALICE@example.org']);
    expectExit(byEmail, 0, 'user show email');
    assert.match(byEmail.stdout, /^email: +alice@example\.org$/m);
    assert.match(byEmail.stdout, /^user_role: +staff$/m);
  });

  // Checked once, on SQLite: refusals come from the handlers and policy checks read no database; the purge's and
  // the deletion's statements are each database's own, and test/store and test/actions/user-delete.test.ts run them
  // on every database, so what the command adds (its output, its confirmation) is all these would check again.
  const onSqlite = {
    skip: db.kind === 'sqlite' ? false : 'the same on every database: SQLite runs it',
  };

  it(
    'refuses what the actions refuse: an insecure password, an existing address, an unknown role or user',
    onSqlite,
    async () => {
      const weak = await admin(['user', 'add', 'bob@example.org', '--name=Bob'], 'password\n');
      expectExit(weak, 1, 'weak password');
      assert.match(weak.stderr, /user-new refused/);
      const none = await admin(['user', 'add', 'bob@example.org', '--name=Bob'], '');
      expectExit(none, 2, 'no password on stdin');
      const again = await admin(['user', 'add', 'alice@example.org', '--name=Alice'], `${PASSWORD}\n`);
      expectExit(again, 1, 'existing user');
      // Plainly, without the end-user message that hides from a stranger whether the address is taken.
      assert.match(again.stderr, /^authsvc: alice@example\.org is already taken \(user \d+\): nothing was added$/m);
      assert.doesNotMatch(again.stderr, /Please verify|User account created/);
      const role = await admin(['user', 'set-role', 'alice@example.org', 'emperor']);
      expectExit(role, 1, 'unknown role');
      assert.match(role.stderr, /user-edit refused/);
      for (const verb of ['show', 'lock', 'unlock', 'delete', 'reset-password']) {
        const missing = await admin(['user', verb, 'nobody@example.org', '--yes'], `${NEW_PASSWORD}\n`);
        expectExit(missing, 1, `${verb} of an unknown user`);
        assert.match(missing.stderr, /no user with email nobody@example\.org/);
      }
      const missingId = await admin(['user', 'show', '9999']);
      expectExit(missingId, 1, 'unknown id');
      assert.match(missingId.stderr, /no user with id 9999/);
      const first = await admin(['user', 'set-role', '1', 'staff']);
      expectExit(first, 1, 'demoting account 1');
    },
  );

  it('changes the role, and a lock made by the command line is seen by a running server at once', async () => {
    const role = await admin(['user', 'set-role', 'alice@example.org', 'authenticated', '--json']);
    expectExit(role, 0, 'set-role');
    assert.equal(parseUser(role).user_role, 'authenticated');
    const alice = parseUser(role).user_id;

    const server = await startAuthsvc(['--port=0'], { cwd: basedir, env });
    try {
      const client = createClient({ url: server.url, secret: env['AUTHSVC_SECRET'] ?? '' });
      const login = async (password: string): Promise<boolean> => {
        const anon = await client.request(
          'session-new',
          { ip_address: '203.0.113.9', user_agent: 'test', user_id: null, expires: 1, extra_info_json: {} },
          { clientIp: '203.0.113.9' },
        );
        assert.ok(anon.success, `session-new: ${JSON.stringify(anon)}`);
        const reply = await client.request(
          'user-login',
          { session_token: anon.response.session_token ?? '', email: 'alice@example.org', password },
          { clientIp: '203.0.113.9' },
        );
        return reply.success;
      };
      assert.equal(await login(PASSWORD), true, 'logs in before the lock');

      const locked = await admin(['user', 'lock', 'alice@example.org', '--json']);
      expectExit(locked, 0, 'lock');
      assert.equal(parseUser(locked).locked, true);
      assert.equal(parseUser(locked).user_role, 'locked');
      assert.match(locked.stderr, /"audit":"user.locked"/);
      assert.equal(await login(PASSWORD), false, 'the running server refuses the locked user');

      const unlocked = await admin(['user', 'unlock', 'alice@example.org']);
      expectExit(unlocked, 0, 'unlock');
      assert.match(unlocked.stdout, /^locked: +false$/m);
      assert.equal(await login(PASSWORD), true, 'logs in again after the unlock');

      const reset = await admin(['user', 'reset-password', 'alice@example.org'], `${NEW_PASSWORD}\n`);
      expectExit(reset, 0, 'reset-password');
      assert.match(reset.stderr, /"audit":"password.reset"/);
      assert.equal(await login(PASSWORD), false, 'the old password no longer works');
      assert.equal(await login(NEW_PASSWORD), true, 'the new password works');

      // A frontend opens alice a session after her login; purging hers ends it on the running server.
      const opened = await client.request(
        'session-new',
        { ip_address: '203.0.113.9', user_agent: 'test', user_id: alice, expires: 1, extra_info_json: {} },
        { clientIp: '203.0.113.9' },
      );
      assert.ok(opened.success && opened.response.session_token !== null);
      const token = opened.response.session_token;
      const purgeUser = await admin(['session', 'purge', '--user=alice@example.org', '--json']);
      expectExit(purgeUser, 0, 'session purge --user');
      assert.deepEqual(JSON.parse(purgeUser.stdout), { user_id: alice, deleted_sessions: 1 });
      const exists = await client.request('session-exists', { session_token: token }, { clientIp: '203.0.113.9' });
      assert.equal(exists.success, false, 'the purged session is gone for the server too');
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  it('purges expired sessions, and leaves no session of its own behind', onSqlite, async () => {
    const purge = await admin(['session', 'purge', '--json']);
    expectExit(purge, 0, 'session purge');
    const deleted = JSON.parse(purge.stdout) as Record<string, number>;
    assert.deepEqual(Object.keys(deleted).sort(), [
      'apikeys',
      'apikeys_nosession',
      'login_tickets',
      'passkey_challenges',
      'refresh_tokens',
      'sessions',
      'user_events',
    ]);
    const human = await admin(['session', 'purge']);
    expectExit(human, 0, 'session purge (table)');
    assert.match(human.stdout, /^sessions +\d+$/m);
    // The commands that needed superuser 1's session deleted it: none of user 1's is left.
    const ofRoot = await admin(['session', 'purge', '--user=1', '--json']);
    expectExit(ofRoot, 0, 'purge of user 1');
    assert.equal((JSON.parse(ofRoot.stdout) as { deleted_sessions: number }).deleted_sessions, 1, 'only its own');
  });

  it('deletes only when confirmed, then the user is gone', onSqlite, async () => {
    const unconfirmed = await admin(['user', 'delete', 'alice@example.org'], 'no\n');
    expectExit(unconfirmed, 1, 'delete without confirmation');
    assert.match(unconfirmed.stderr, /not confirmed/);
    const confirmed = await admin(['user', 'delete', 'alice@example.org'], 'yes\n');
    expectExit(confirmed, 0, 'delete confirmed on stdin');
    assert.match(confirmed.stderr, /"audit":"user.deleted"/);
    const gone = await admin(['user', 'show', 'alice@example.org']);
    expectExit(gone, 1, 'show after delete');
    const superuser = await admin(['user', 'delete', '1', '--yes']);
    expectExit(superuser, 1, 'deleting the superuser');
    assert.match(superuser.stderr, /user-delete refused/);
  });

  it('checks the policy in force, named by the configuration', onSqlite, async () => {
    const check = await admin(['policy', 'check']);
    expectExit(check, 0, 'policy check');
    assert.match(check.stdout, /default\.json: no problems/);
    const broken = join(basedir, 'broken-policy.json');
    writeFileSync(broken, '{ "roles": [] }');
    const bad = await runAuthsvc(['policy', 'check', `--permissions=${broken}`], { cwd: basedir, env });
    expectExit(bad, 1, 'broken policy in force');
  });
}
