/**
 * Stored dicts are bounded (docs/design.md#stored-dicts-and-replies-are-bounded): `extra_info` and `extra_info_json`
 * stay within 64 KiB serialized, on input and after every merge, and listing replies stop at 4 MiB as well as at
 * their count, so no accepted input can make a later read fail (issue 15, finding 2). Through real
 * HTTP, on every database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_DICT_BYTES, MAX_PAGE_BYTES } from '../../src/protocol/index.js';
import { openSession, signUp } from '../helpers/accounts.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { insertUsers } from '../helpers/users.js';

/** A dict of about `bytes` serialized. */
const dictOf = (bytes: number, key = 'blob'): Record<string, string> => ({ [key]: 'x'.repeat(bytes - key.length - 7) });
const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

/** Users whose extra_info is near the bound: 70 of them make more than 4 MiB. */
const BIG_USERS = 70;
const FIRST_BIG = 1000;

forEachDatabase((db) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ database: await db.fresh() });
  });
  after(async () => {
    await server.close();
  });

  describe('every stored dict is bounded to 64 KiB serialized', () => {
    it('user-new refuses an extra_info over the bound, naming it, and stores nothing', async () => {
      const reply = await server.call('user-new', {
        email: 'big@example.org',
        password: 'plinth-orchard-vapour-42',
        full_name: 'Big',
        extra_info: dictOf(MAX_DICT_BYTES + 1),
      });
      assert.equal(reply.success, false);
      assert.equal(reply.failure_reason, 'invalid request parameters');
      assert.deepEqual(
        (reply.response as { problems?: Array<{ param: string }> }).problems?.map((p) => p.param),
        ['extra_info'],
      );
      const lookup = await server.call('user-lookup-email', { email: 'big@example.org' });
      assert.equal(lookup.success, false);
    });

    it('user-new accepts an extra_info within the bound', async () => {
      const reply = await server.call('user-new', {
        email: 'fits@example.org',
        password: 'plinth-orchard-vapour-42',
        full_name: 'Fits',
        extra_info: dictOf(MAX_DICT_BYTES - 200),
      });
      assert.equal(reply.success, true, JSON.stringify(reply).slice(0, 300));
    });

    it('session-new refuses an extra_info_json over the bound', async () => {
      const reply = await server.call('session-new', {
        ip_address: '192.0.2.1',
        user_agent: 'ua',
        user_id: null,
        expires: 1,
        extra_info_json: dictOf(MAX_DICT_BYTES + 1),
      });
      assert.equal(reply.success, false);
      assert.equal(reply.failure_reason, 'invalid request parameters');
    });

    it('internal-user-edit refuses a merge that would pass the bound and keeps the stored dict', async () => {
      const userId = await signUp(server, 'merge@example.org');
      const edit = (key: string) =>
        server.call('internal-user-edit', { target_userid: userId, update_dict: { extra_info: dictOf(40_000, key) } });
      assert.equal((await edit('one')).success, true);
      const second = await edit('two');
      assert.equal(second.success, false);
      assert.equal(second.failure_reason, 'the merged dict would exceed its size or depth bounds');
      const stored = await server.call('user-list', { user_id: userId });
      const info = (stored.response.user_info as Array<{ extra_info: Record<string, unknown> }>)[0];
      assert.ok(info !== undefined && 'one' in info.extra_info && !('two' in info.extra_info));
    });

    it('internal-session-edit refuses a merge that would pass the bound', async () => {
      const token = await openSession(server);
      const edit = (key: string) =>
        server.call('internal-session-edit', { target_session_token: token, update_dict: dictOf(40_000, key) });
      assert.equal((await edit('one')).success, true);
      const second = await edit('two');
      assert.equal(second.success, false);
      assert.equal(second.failure_reason, 'the merged dict would exceed its size or depth bounds');
    });
  });

  describe('listing replies stop at 4 MiB as well as at their count', () => {
    before(async () => {
      const users = Array.from({ length: BIG_USERS }, (_, i) => ({
        userId: FIRST_BIG + i,
        role: 'staff',
        extraInfo: { tag: 'big', ...dictOf(MAX_DICT_BYTES - 100) },
      }));
      // In slices: one statement of 4 MiB is more than some servers take by default.
      for (let i = 0; i < users.length; i += 10) await insertUsers(server.app.store, users.slice(i, i + 10));
    });

    /** Walks every page of `action`; returns the ids in order and the largest page's size. */
    const walk = async (action: 'user-list' | 'user-lookup-match', body: Record<string, unknown>) => {
      const ids: number[] = [];
      let largest = 0;
      let pages = 0;
      for (let afterId: number | null = null; ; pages++) {
        assert.ok(pages < 20, 'paging ends');
        const reply = (await server.call(action, {
          ...body,
          ...(afterId === null ? {} : { after_user_id: afterId }),
        })) as { success: boolean; response: Record<string, unknown> };
        assert.equal(reply.success, true, JSON.stringify(reply).slice(0, 300));
        const infos = reply.response.user_info as Array<{ user_id: number }>;
        largest = Math.max(largest, bytesOf(infos));
        ids.push(...infos.map((info) => info.user_id));
        if (reply.response.has_more !== true) return { ids, largest, pages: pages + 1 };
        assert.ok(infos.length > 0, 'a page that says more follow is not empty');
        afterId = infos.at(-1)?.user_id ?? null;
      }
    };
    const bigIds = Array.from({ length: BIG_USERS }, (_, i) => FIRST_BIG + i);

    it('user-list pages through every user, each page within 4 MiB', async () => {
      const { ids, largest, pages } = await walk('user-list', { user_id: null });
      assert.ok(largest <= MAX_PAGE_BYTES, `a page of ${largest} bytes`);
      assert.ok(pages >= 2);
      assert.deepEqual(
        ids.filter((id) => id >= FIRST_BIG),
        bigIds,
      );
      assert.equal(new Set(ids).size, ids.length, 'no user twice');
    });

    it('user-lookup-match by extra_info pages the same way', async () => {
      const { ids, largest, pages } = await walk('user-lookup-match', { by: 'extra_info', match: { tag: 'big' } });
      assert.ok(largest <= MAX_PAGE_BYTES, `a page of ${largest} bytes`);
      assert.ok(pages >= 2);
      assert.deepEqual(ids, bigIds);
    });

    it('user-lookup-match by a column pages the same way', async () => {
      const { ids, largest, pages } = await walk('user-lookup-match', { by: 'user_role', match: 'staff' });
      assert.ok(largest <= MAX_PAGE_BYTES, `a page of ${largest} bytes`);
      assert.ok(pages >= 2);
      assert.deepEqual(ids, bigIds);
    });
  });
});
