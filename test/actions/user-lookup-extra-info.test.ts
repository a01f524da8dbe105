/**
 * user-lookup-match by extra_info, matched in the database (docs/design.md#user-lookup-match-by-extra_info): on
 * every database it answers exactly what holdsItems says of every stored dict (types kept apart, deep equality),
 * whatever the keys, the values and the gaps between user ids; and a search that goes on too long answers busy.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { holdsItems } from '../../src/domain/json-equal.js';
import type { JsonObject, JsonValue } from '../../src/protocol/index.js';
import { FrozenClock } from '../helpers/clock.js';
import { forEachDatabase } from '../helpers/databases.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { insertUsers } from '../helpers/users.js';

/** Keys the SQL prefilter takes, and keys it must leave to the exact check (dots, quotes, spaces, non-ASCII). */
const KEYS = ['plan', 'n', 'tags', 'org', 'x.y', 'we"ird', "it's", ' sp', 'é', '$', 'a[0]'];

/** Values that look alike to a careless comparison: 1, "1", true, 1.5; arrays in two orders; objects likewise. */
const VALUES: readonly JsonValue[] = [
  1,
  '1',
  true,
  false,
  0,
  null,
  1.5,
  -2,
  9007199254740991,
  1e21,
  'A',
  'a',
  'é',
  '',
  ' 1',
  'true',
  'null',
  [1, 2],
  [2, 1],
  ['1'],
  [],
  {},
  { p: 1, q: [true] },
  { q: [true], p: 1 },
  { p: '1' },
];

const value = fc.constantFrom(...VALUES);
const dict = (minKeys: number, maxKeys: number): fc.Arbitrary<JsonObject> =>
  fc.dictionary(fc.constantFrom(...KEYS), value, { minKeys, maxKeys });

/** Ids far enough apart that SQLite's windows (5,000 ids a statement) come up empty between them. */
const FIRST_ID = 100;
const IDS = Array.from({ length: 120 }, (_, i) => FIRST_ID + i * 3 + Math.floor(i / 40) * 12_007);
const idOf = (index: number): number => IDS[index] ?? 0;

forEachDatabase((db) => {
  describe('user-lookup-match by extra_info', () => {
    let server: TestServer;
    const stored = fc.sample(dict(0, 4), { numRuns: IDS.length, seed: 30 });

    before(async () => {
      server = await startTestServer({ database: db });
      await insertUsers(
        server.app.store,
        stored.map((extraInfo, index) => ({ userId: idOf(index), role: 'authenticated', extraInfo })),
      );
    });
    after(() => server.close());

    /** Every id the action answers for `wanted`, page after page. */
    const matchAll = async (wanted: JsonObject): Promise<number[]> => {
      const found: number[] = [];
      for (let afterId = 0; ;) {
        const reply = await server.call('user-lookup-match', {
          by: 'extra_info',
          match: wanted,
          ...(afterId === 0 ? {} : { after_user_id: afterId }),
        });
        assert.equal(reply.success, true, JSON.stringify(reply));
        const page = reply.success ? reply.response : null;
        const ids = (page?.user_info ?? []).map((user) => user.user_id);
        found.push(...ids.filter((id) => id >= FIRST_ID)); // not the seeded accounts 1–3
        if (page?.has_more !== true) return found;
        afterId = ids.at(-1) ?? afterId;
      }
    };
    const expected = (wanted: JsonObject): number[] =>
      stored.flatMap((extraInfo, index) => (holdsItems(extraInfo, wanted) ? [idOf(index)] : []));

    it('answers what holdsItems says of every stored dict', async () => {
      await fc.assert(
        fc.asyncProperty(dict(1, 3), async (wanted) => {
          assert.deepEqual(await matchAll(wanted), expected(wanted));
        }),
        { numRuns: 40, seed: 31 },
      );
    });

    it('finds each stored dict by itself, and by each of its items', async () => {
      for (const [index, extraInfo] of stored.entries()) {
        if (index % 4 !== 0 || Object.keys(extraInfo).length === 0) continue; // a match names one item or more
        const found = await matchAll(extraInfo);
        assert.ok(found.includes(idOf(index)), `${JSON.stringify(extraInfo)} finds user ${idOf(index)}`);
        assert.deepEqual(found, expected(extraInfo));
        for (const [key, item] of Object.entries(extraInfo)) {
          assert.deepEqual(
            await matchAll({ [key]: item }),
            expected({ [key]: item }),
            `${key}: ${JSON.stringify(item)}`,
          );
        }
      }
    });

    it('answers an empty page when nothing holds the items, across every gap of ids', async () => {
      assert.deepEqual(await matchAll({ plan: 'nobody has this' }), []);
      assert.deepEqual(await matchAll({ 'we"ird': 'nor this' }), []);
    });
  });
});

/** A clock that moves on by `step` each time it is read: a search that reads it often runs out of time. */
class TickingClock extends FrozenClock {
  ticking = false;
  constructor(private readonly step: number) {
    super();
  }
  override now(): number {
    if (this.ticking) this.advance(this.step);
    return super.now();
  }
}

forEachDatabase(
  (db) => {
    it('answers busy (503) when a search by extra_info goes on past its budget', async () => {
      const clock = new TickingClock(700);
      const server = await startTestServer({ database: db, clock });
      try {
        // Users 30,000 ids apart: six windows of SQLite with nothing in them between two users.
        await insertUsers(
          server.app.store,
          Array.from({ length: 4 }, (_, i) => ({ userId: 10 + i * 30_000, role: 'authenticated', extraInfo: {} })),
        );
        const wanted = { by: 'extra_info' as const, match: { plan: 'none' } };
        const quick = await server.call('user-lookup-match', wanted);
        assert.deepEqual(quick.success && quick.response, { user_info: [], has_more: false });
        clock.ticking = true;
        await assert.rejects(server.call('user-lookup-match', wanted), /HTTP 503/);
      } finally {
        await server.close();
      }
    });
  },
  ['sqlite'],
);
