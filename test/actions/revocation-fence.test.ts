/**
 * A revocation is a fence (issue 26, finding 3; docs/design.md#revocation-fence), one revocation kind at a time: a
 * no-session key and its refresh token issued before a lock, a deactivation, a role change, a password
 * change or a reset no longer verify or refresh, even once the user's standing is restored. The same
 * holds for their rows written again after the revocation, as the insert of a concurrent issuance that
 * read the user before the revocation would land: only the credential generation can refuse those.
 * (The race itself, through two worker processes, is test/reliability/lock-fence-workers.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { GOOD_PASSWORD, openSession, storedRow, verifiedUser } from '../helpers/accounts.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { sqlOf } from '../helpers/sql.js';

type Dict = Record<string, unknown>;
const NEW_PASSWORD = 'quartz-meadow-lantern-77';
const LIFETIMES = { expires_seconds: 600, not_valid_before: 0, refresh_expires: 600, refresh_nbf: 0 } as const;
const ISSUE = { issuer: 'f', audience: 'a', subject: 's', apiversion: 1, ip_address: '198.51.100.20' } as const;

interface Holder {
  readonly userId: number;
  readonly email: string;
}

interface Kind {
  readonly name: string;
  /** The revocation; must succeed. */
  revoke(holder: Holder): Promise<{ success: boolean }>;
  /** Gives the user back the standing the revocation took (nothing for a password change). */
  restore(holder: Holder): Promise<void>;
}

forEachDatabase((db) => {
  let server: TestServer;
  let admin: string;
  let serial = 0;
  before(async () => {
    server = await startTestServer({ database: db });
    admin = await openSession(server, 1);
  });
  after(() => server.close());

  const edit = async (holder: Holder, update: Dict) => {
    const reply = await server.call('user-edit', {
      user_id: 1,
      user_role: 'superuser',
      session_token: admin,
      target_userid: holder.userId,
      update_dict: update,
    });
    assert.ok(reply.success, JSON.stringify(reply));
    return reply;
  };
  const lock = (holder: Holder, action: 'lock' | 'unlock') =>
    server.call('user-lock', {
      user_id: 1,
      user_role: 'superuser',
      session_token: admin,
      target_userid: holder.userId,
      action,
    });
  const nothing = (): Promise<void> => Promise.resolve();

  const KINDS: readonly Kind[] = [
    {
      name: 'user-lock',
      revoke: (holder) => lock(holder, 'lock'),
      async restore(holder) {
        assert.ok((await lock(holder, 'unlock')).success);
      },
    },
    {
      name: 'deactivation (user-edit is_active false)',
      revoke: (holder) => edit(holder, { is_active: false }),
      async restore(holder) {
        await edit(holder, { is_active: true });
      },
    },
    {
      name: 'role change (user-edit user_role)',
      revoke: (holder) => edit(holder, { user_role: 'staff' }),
      async restore(holder) {
        await edit(holder, { user_role: 'authenticated' });
      },
    },
    {
      name: 'password change (user-changepass-nosession)',
      revoke: (holder) =>
        server.call('user-changepass-nosession', {
          user_id: holder.userId,
          full_name: 'Jane Doe',
          email: holder.email,
          current_password: GOOD_PASSWORD,
          new_password: NEW_PASSWORD,
        }),
      restore: nothing,
    },
    {
      name: 'password change keeping the session (user-changepass)',
      revoke: async (holder) =>
        server.call('user-changepass', {
          user_id: holder.userId,
          session_token: await openSession(server, holder.userId),
          full_name: 'Jane Doe',
          email: holder.email,
          current_password: GOOD_PASSWORD,
          new_password: NEW_PASSWORD,
        }),
      restore: nothing,
    },
    {
      name: 'password reset (user-resetpass-nosession)',
      revoke: (holder) =>
        server.call('user-resetpass-nosession', {
          email_address: holder.email,
          new_password: NEW_PASSWORD,
          required_active: true,
        }),
      restore: nothing,
    },
    {
      name: 'password reset (user-resetpass)',
      revoke: async (holder) =>
        server.call('user-resetpass', {
          email_address: holder.email,
          new_password: NEW_PASSWORD,
          session_token: await openSession(server),
        }),
      restore: nothing,
    },
  ];

  interface Issued {
    readonly dict: Dict;
    readonly refreshToken: string;
  }

  async function issue(holder: Holder): Promise<Issued> {
    const reply = await server.call('apikey-new-nosession', {
      ...ISSUE,
      ...LIFETIMES,
      user_id: holder.userId,
      user_role: 'authenticated',
    });
    assert.ok(reply.success, JSON.stringify(reply));
    return { dict: JSON.parse(reply.response.apikey) as Dict, refreshToken: reply.response.refresh_token };
  }

  /** The verify's answer, as the superuser, so that only the key decides (not the holder's standing). */
  const verify = async (key: Issued) =>
    server.call('apikey-verify-nosession', { apikey_dict: key.dict, user_id: 1, user_role: 'superuser' });
  const refresh = (holder: Holder, key: Issued) =>
    server.call('apikey-refresh-nosession', {
      apikey_dict: key.dict,
      user_id: holder.userId,
      user_role: 'authenticated',
      refresh_token: key.refreshToken,
      ip_address: ISSUE.ip_address,
      ...LIFETIMES,
    });
  const answer = (reply: { readonly success: boolean; readonly messages: readonly string[] }) => ({
    success: reply.success,
    failure_reason: 'failure_reason' in reply ? reply.failure_reason : null,
    messages: reply.messages,
  });

  /** The holder's key rows as stored, to write them again as a late insert would. */
  async function keyRows(holder: Holder): Promise<{ keys: Dict[]; tokens: Dict[] }> {
    const sql = sqlOf(server.app.store);
    return {
      keys: (await sql('apikeys_nosession').where('user_id', holder.userId)) as Dict[],
      tokens: (await sql('refresh_tokens').where('user_id', holder.userId)) as Dict[],
    };
  }

  const generationOf = async (holder: Holder): Promise<number> =>
    Number((await storedRow(server.app.store, holder.userId))?.['credential_generation']);

  for (const kind of KINDS) {
    it(`${kind.name}: what was issued before it never verifies again`, async () => {
      const holder: Holder = { email: `fence${++serial}@example.org`, userId: 0 };
      const user: Holder = { ...holder, userId: await verifiedUser(server, holder.email) };
      // A key revoked the ordinary way: what every fenced key must answer like.
      const revoked = await issue(user);
      const revokeReply = await server.call('apikey-revoke-nosession', {
        apikey_dict: revoked.dict,
        user_id: 1,
        user_role: 'superuser',
      });
      assert.ok(revokeReply.success, JSON.stringify(revokeReply));
      const refused = answer(await verify(revoked));
      assert.equal(refused.success, false);

      const key = await issue(user);
      const late = await issue(user);
      assert.equal((await verify(key)).success, true);
      const rows = await keyRows(user);
      const generation = await generationOf(user);

      const reply = await kind.revoke(user);
      assert.ok(reply.success, JSON.stringify(reply));
      assert.equal(await generationOf(user), generation + 1, 'the revocation bumped the generation once');
      // The late insert: a concurrent issuance that read the user before the revocation lands after it.
      await sqlOf(server.app.store)('apikeys_nosession').insert(rows.keys);
      await sqlOf(server.app.store)('refresh_tokens').insert(rows.tokens);
      await kind.restore(user);

      for (const issued of [key, late]) {
        assert.deepEqual(answer(await verify(issued)), refused);
        const refreshed = await refresh(user, issued);
        assert.equal(refreshed.success, false, JSON.stringify(refreshed));
      }
      // The standing is back: a key issued now verifies.
      assert.equal((await verify(await issue(user))).success, true);
    });
  }
});
