/**
 * Hostile input to every action, through the real HTTP interface of a real authsvc process on SQLite.
 * fast-check builds envelopes and bodies from a valid request of each action: items replaced by wrong
 * types, huge strings, deep nesting, prototype-pollution keys, invalid UTF-8, NUL bytes and numbers at
 * the edges; items dropped, duplicated and added. Every body is sealed with the server's key, so it
 * reaches the envelope check and, mostly, the action's own validation and handler.
 *
 * Each reply: never a 500, nothing of the server's insides (decrypted first), and when the request was
 * refused (HTTP 400 or "invalid request parameters") the database is exactly as before it. A canary
 * (accounts, a session and an API key no request names, and the decisions about them) is identical
 * before and after, and the process serves to the end and logs no error.
 *
 * Bounded: AUTHSVC_FUZZ_RUNS requests per action (default 200), from seed AUTHSVC_FUZZ_SEED (printed).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import argon2 from 'argon2';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { actionNames, fernetEncrypt } from '../../../src/protocol/index.js';
import type { ActionName } from '../../../src/protocol/index.js';
import { openStore } from '../../../src/services/store/index.js';
import type { Store } from '../../../src/services/store/index.js';
import { databaseDigest } from '../../helpers/digest.js';
import type { AuthsvcProcess } from '../../helpers/process.js';
import { sqlOf } from '../../helpers/sql.js';
import { envInt, keepAlive, leakIn, sendRaw, spawnOn, sqliteFile } from '../../helpers/suite.js';
import { KEY_ISSUE, sessionNewBody, validRequests } from '../../helpers/requests.js';
import { insertUsers } from '../../helpers/users.js';

const RUNS = envInt('AUTHSVC_FUZZ_RUNS', 200);
const SEED = envInt('AUTHSVC_FUZZ_SEED', 20_261_123);
const PASSWORD = 'plinth-orchard-vapour-42';
/** Accounts the fuzzed requests may touch (their valid templates name them). */
const FUZZ_USERS = [100, 101, 102];
/** The canary: accounts no template names and no generated value can reach (ids far from every edge). */
const CANARY_USERS = [7001, 7002, 7003];
const INVALID = 'invalid request parameters';

const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');
const json = (value: unknown): Buffer => bytes(JSON.stringify(value));
const nest = (levels: number, open: string, close: string): Buffer =>
  bytes(open.repeat(levels) + '1' + close.repeat(levels));

/** Values no action accepts anywhere, or accepts only by accident: each is JSON text (bytes). */
const FIXED_HOSTILE: readonly Buffer[] = [
  // wrong types
  json(null),
  json(true),
  json(false),
  json(''),
  json([]),
  json({}),
  json([1, 'two', null]),
  // numbers at the edges (as text: some are not representable as a JS number)
  bytes('0'),
  bytes('-0'),
  bytes('-1'),
  bytes('1.5'),
  bytes('1e-7'),
  bytes('5e-324'),
  bytes('2147483647'),
  bytes('2147483648'),
  bytes('-2147483649'),
  bytes('9007199254740991'),
  bytes('9007199254740993'),
  bytes('-9007199254740993'),
  bytes('1.7976931348623157e308'),
  bytes('1e309'),
  bytes('-1e309'),
  bytes('123456789012345678901234567890'),
  json('1'),
  json('NaN'),
  json('Infinity'),
  json('0x10'),
  // huge strings
  json('x'.repeat(100_000)),
  json('é'.repeat(60_000)),
  json('\u{1F600}'.repeat(30_000)),
  json(Array.from({ length: 20_000 }, (_, i) => i)),
  // NUL bytes, lone surrogates, invalid UTF-8
  json('nul\u0000byte'),
  json('lone \ud800 surrogate'),
  bytes('"\\udc00\\ud800"'),
  // deep nesting
  nest(64, '[', ']'),
  nest(1_000, '[', ']'),
  nest(100, '{"a":', '}'),
  nest(10_000, '{"a":', '}'),
  // prototype pollution
  bytes('{"__proto__":{"isAdmin":true,"user_role":"superuser","user_id":7001}}'),
  bytes('{"constructor":{"prototype":{"polluted":true}}}'),
  bytes('{"prototype":{"user_role":"superuser"}}'),
  bytes('{"__proto__":null}'),
  bytes('[{"__proto__":{"a":1}}]'),
  json({ toString: 1, valueOf: 'x', hasOwnProperty: null }),
  // strings that attack whatever reads them
  json("' OR '1'='1"),
  json("x@example.org'; DROP TABLE users; --"),
  json('../../../../etc/passwd'),
  json('%s%n%x%p'),
  json('${7*7}{{7*7}}#{7*7}'),
  json('<script>alert(1)</script>'),
  json('victim@example.org\r\nBcc: attacker@example.com'),
  json('@'),
  json('a@b'),
  json(' '),
  json('superuser'),
];

/**
 * Values that make the whole plaintext unreadable (invalid UTF-8, a raw control character): the
 * envelope check refuses them before any action, so they are rarer, to let most bodies reach one.
 */
const UNREADABLE: readonly Buffer[] = [
  bytes('"raw\u0000nul"'),
  Buffer.concat([bytes('"bad '), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), bytes(' utf8"')]),
  Buffer.concat([bytes('"'), Buffer.from([0xed, 0xa0, 0x80]), bytes('"')]),
  Buffer.concat([bytes('"overlong '), Buffer.from([0xc0, 0xaf]), bytes('"')]),
];

/** A hostile value: one of the fixed ones or a random one of any JSON shape. */
const hostileValue: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...FIXED_HOSTILE) },
  { weight: 1, arbitrary: fc.constantFrom(...UNREADABLE) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map(json) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 80 }).map(json) },
  { weight: 2, arbitrary: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })).map(json) },
);

/** Keys a body never expects, including those that reach a prototype. */
const hostileKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'user_role', 'is_active'),
  fc.string({ maxLength: 20 }),
);

type Entry = readonly [key: string, value: Buffer];
const object = (entries: readonly Entry[]): Buffer =>
  Buffer.concat([
    bytes('{'),
    ...entries.flatMap(([key, value], i) => [bytes(`${i === 0 ? '' : ','}${JSON.stringify(key)}:`), value]),
    bytes('}'),
  ]);

/**
 * A body built from a valid one: each item kept, replaced or dropped; sometimes a duplicate of an item
 * (JSON lets the last one win); extra items with hostile keys.
 */
function hostileBody(valid: Record<string, unknown>): fc.Arbitrary<Buffer> {
  const items = Object.entries(valid);
  return fc
    .tuple(
      fc.tuple(
        ...items.map(([key, value]) =>
          fc.oneof(
            { weight: 10, arbitrary: fc.constant<Entry[]>([[key, json(value)]]) },
            { weight: 3, arbitrary: hostileValue.map((v): Entry[] => [[key, v]]) },
            { weight: 1, arbitrary: fc.constant<Entry[]>([]) },
            {
              weight: 1,
              arbitrary: hostileValue.map((v): Entry[] => [
                [key, json(value)],
                [key, v],
              ]),
            },
          ),
        ),
      ),
      fc.oneof(fc.constant([]), fc.array(fc.tuple(hostileKey, hostileValue), { minLength: 1, maxLength: 3 })),
    )
    .map(([kept, extra]) => object([...kept.flat(), ...extra]));
}

interface Case {
  readonly kind: 'body' | 'envelope' | 'plaintext';
  readonly plaintext: Buffer;
}

/** A whole request: mostly a hostile body in a good envelope; sometimes a hostile envelope. */
function hostileCase(name: string, valid: Record<string, unknown>): fc.Arbitrary<Case> {
  const good = (body: Buffer, reqid: Buffer = json('fuzz'), ip: Buffer = json('192.0.2.9')): Buffer =>
    object([
      ['request', json(name)],
      ['body', body],
      ['reqid', reqid],
      ['client_ipaddr', ip],
    ]);
  const body = hostileBody(valid);
  return fc.oneof(
    { weight: 16, arbitrary: body.map((b): Case => ({ kind: 'body', plaintext: good(b) })) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          fc.oneof(body, hostileValue),
          fc.oneof(fc.constant(json('fuzz')), hostileValue),
          fc.oneof(fc.constant(json('192.0.2.9')), hostileValue),
          fc.oneof(fc.constant(json(name)), hostileValue),
          fc.array(fc.tuple(hostileKey, hostileValue), { maxLength: 2 }),
        )
        .map(([b, reqid, ip, request, extra]): Case => ({
          kind: 'envelope',
          plaintext: object([['request', request], ['body', b], ['reqid', reqid], ['client_ipaddr', ip], ...extra]),
        })),
    },
    {
      weight: 1,
      // Broken plaintext inside a good token: invalid UTF-8 or a NUL byte between items, a truncation.
      arbitrary: fc
        .tuple(body, fc.constantFrom(Buffer.from([0xff]), Buffer.from([0]), Buffer.from([0xc3])), fc.nat())
        .map(([b, junk, at]): Case => {
          const whole = good(b);
          const cut = at % whole.length;
          return {
            kind: 'plaintext',
            plaintext:
              at % 2 === 0
                ? Buffer.concat([whole.subarray(0, cut), junk, whole.subarray(cut)])
                : whole.subarray(0, cut),
          };
        }),
    },
  );
}

interface Tally {
  runs: number;
  handled: number;
  invalid: number;
  refused400: number;
  tooLarge: number;
}

describe('hostile input to every action', () => {
  const db = sqliteFile();
  let server: AuthsvcProcess;
  let store: Store;
  let valid: Record<ActionName, Record<string, unknown>>;
  let canaryDecisions: (label: string) => Promise<string[]>;
  const tallies = new Map<ActionName, Tally>();

  before(async () => {
    server = await spawnOn(db.target, { env: { AUTHSVC_ADMIN_EMAIL: 'admin@example.org' } });
    store = openStore(db.target);
    const hash = await argon2.hash(PASSWORD, { type: argon2.argon2id, memoryCost: 1024, timeCost: 1, parallelism: 1 });
    await insertUsers(store, [
      ...FUZZ_USERS.map((userId) => ({ userId, role: 'authenticated', passwordHash: hash })),
      { userId: 7001, role: 'authenticated', email: 'canary-1@example.net', passwordHash: hash },
      { userId: 7002, role: 'staff', email: 'canary-2@example.net', passwordHash: hash },
      { userId: 7003, role: 'locked', active: false, email: 'canary-3@example.net', passwordHash: hash },
    ]);
  });
  after(async () => {
    await store.close();
    await server.stop();
    db.remove();
  });

  const agent = keepAlive(1);
  after(() => agent.destroy());
  const call = async (action: string, body: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const sent = await sendRaw(server.port, server.seal(action, body, 'setup'), agent);
    assert.equal(sent.status, 200, sent.text);
    return server.open(sent.text);
  };
  const session = async (userId: number): Promise<string> => {
    const opened = await call('session-new', { ...sessionNewBody(userId), expires: 7 });
    assert.equal(opened['success'], true, JSON.stringify(opened));
    return String((opened['response'] as Record<string, unknown>)['session_token']);
  };

  /** The canary's rows, in every table. */
  const canaryRecords = async (): Promise<string> => {
    const knex = sqlOf(store);
    const tables = ['users', 'sessions', 'apikeys', 'apikeys_nosession', 'refresh_tokens'];
    const lines: string[] = [];
    for (const table of tables) {
      const rows = (await knex(table).whereIn('user_id', CANARY_USERS).select('*')) as Array<Record<string, unknown>>;
      lines.push(...rows.map((row) => `${table}: ${JSON.stringify(row)}`));
    }
    return lines.sort().join('\n');
  };

  it('sets up a target session and a canary of accounts, a session, an API key and their decisions', async () => {
    const token = await session(100);
    const canaryToken = await session(7001);
    const lifetimes = { expires_seconds: 86_400, not_valid_before: 0, refresh_expires: 86_400, refresh_nbf: 0 };
    const issued = await call('apikey-new-nosession', {
      ...KEY_ISSUE,
      ...lifetimes,
      user_id: 7001,
      user_role: 'authenticated',
    });
    assert.equal(issued['success'], true, JSON.stringify(issued));
    const canaryKey = JSON.parse(String((issued['response'] as Record<string, unknown>)['apikey'])) as unknown;
    const targetKeyReply = await call('apikey-new-nosession', {
      ...KEY_ISSUE,
      ...lifetimes,
      user_id: 100,
      user_role: 'authenticated',
    });
    const targetKey = JSON.parse(String((targetKeyReply['response'] as Record<string, unknown>)['apikey'])) as unknown;
    const targetRefresh = String((targetKeyReply['response'] as Record<string, unknown>)['refresh_token']);

    // One valid request per action, naming only the fuzz targets; the fuzz starts from these.
    valid = validRequests({
      token,
      user: { id: 100, role: 'authenticated', email: 'user100@example.org' },
      other: { id: 101, email: 'user101@example.org' },
      victim: { id: 102, email: 'user102@example.org' },
      newcomer: 'jane@example.org',
      password: PASSWORD,
      newPassword: 'quartz-lantern-meadow-77',
      apikey: targetKey,
      refreshToken: targetRefresh,
      lifetimes,
    });
    assert.deepEqual(Object.keys(valid).sort(), [...actionNames].sort(), 'a valid request of every action');

    // The canary's decisions: what the server says about the canary, replies compared whole. Reads
    // only: a password check would stamp the canary's last login and change the next read.
    const decisions: Array<[string, Record<string, unknown>]> = [
      ['session-exists', { session_token: canaryToken }],
      ['apikey-verify-nosession', { apikey_dict: canaryKey, user_id: 7001, user_role: 'authenticated' }],
      ['user-lookup-email', { email: 'canary-2@example.net' }],
      ...CANARY_USERS.flatMap((userId, i): Array<[string, Record<string, unknown>]> =>
        ['view', 'edit', 'delete'].map((action) => [
          'user-check-access',
          {
            user_id: userId,
            user_role: ['authenticated', 'staff', 'locked'][i],
            action,
            target_name: 'dataset',
            target_owner: 7001,
            target_visibility: ['private', 'shared', 'public'][i],
            target_sharedwith: '7002',
          },
        ]),
      ),
    ];
    canaryDecisions = async (label) => {
      const replies: string[] = [];
      for (const [action, body] of decisions) {
        const reply = await call(action, body);
        replies.push(`${action}: ${JSON.stringify(reply)}`);
      }
      assert.ok(replies[0]?.includes('"success":true'), `${label}: the canary session exists`);
      assert.ok(replies[1]?.includes('"success":true'), `${label}: the canary key is valid`);
      return replies;
    };
  });

  it(`answers ${RUNS} hostile requests per action without a 500, a leak or a change when refused`, async (t) => {
    const decisionsBefore = await canaryDecisions('before');
    const recordsBefore = await canaryRecords();
    t.diagnostic(`fuzz seed ${SEED} (AUTHSVC_FUZZ_SEED), ${RUNS} runs per action (AUTHSVC_FUZZ_RUNS)`);
    const knex = sqlOf(store);
    let digest = await databaseDigest(knex);
    // SQLite's data_version moves when another connection commits: the whole digest is recomputed only
    // then, which keeps thousands of requests cheap and the check exact.
    const watcher = new Database(db.target.filename, { readonly: true });
    const version = (): number => watcher.pragma('data_version', { simple: true }) as number;
    let seen = version();
    const secret = server.keyring.keys[0];
    const seal = (plaintext: Buffer): string =>
      fernetEncrypt(secret, plaintext, Math.floor(Date.now() / 1000), randomBytes(16));

    for (const [index, name] of [...actionNames].sort().entries()) {
      const tally: Tally = { runs: 0, handled: 0, invalid: 0, refused400: 0, tooLarge: 0 };
      tallies.set(name, tally);
      await fc.assert(
        fc.asyncProperty(hostileCase(name, valid[name]), async (c) => {
          tally.runs++;
          const sent = await sendRaw(server.port, seal(c.plaintext), agent);
          const label = `${name} (${c.kind}): ${c.plaintext.subarray(0, 160).toString('utf8')}`;
          assert.ok(
            [200, 400, 413].includes(sent.status),
            `HTTP ${sent.status} ${sent.text.slice(0, 200)} for ${label}`,
          );
          let refused = sent.status !== 200;
          let shown = sent.text;
          if (sent.status === 200) {
            const reply = server.open(sent.text);
            shown = JSON.stringify(reply);
            tally.handled++;
            if (reply['failure_reason'] === INVALID) {
              tally.invalid++;
              refused = true;
            }
          } else if (sent.status === 400) tally.refused400++;
          else tally.tooLarge++;
          const leak = leakIn(shown, db.target.filename);
          assert.equal(leak, null, `the reply shows ${leak} for ${label}: ${shown.slice(0, 300)}`);
          const current = version();
          if (current === seen) return;
          seen = current;
          const now = await databaseDigest(knex);
          if (refused) assert.equal(now, digest, `a refused request changed the database: ${label}`);
          digest = now;
        }),
        { numRuns: RUNS, seed: SEED + index, endOnFailure: true },
      );
    }

    watcher.close();
    assert.equal(server.child.exitCode, null, 'the process is alive');
    assert.equal((await server.health()).status, 200);
    assert.equal(await canaryRecords(), recordsBefore, 'the canary records are unchanged');
    assert.deepEqual(await canaryDecisions('after'), decisionsBefore, 'the canary decisions are unchanged');
    assert.deepEqual(
      server.logs.filter((l) => l['level'] === 'error' || l['status'] === 500),
      [],
      'no error logged',
    );

    const all = [...tallies.values()];
    const sum = (pick: (t: Tally) => number): number => all.reduce((n, x) => n + pick(x), 0);
    for (const [name, x] of tallies) {
      t.diagnostic(
        `${name}: ${x.runs} fuzzed, ${x.handled} reached the action (${x.invalid} refused as invalid, ` +
          `${x.handled - x.invalid} handled), ` +
          `${x.refused400} envelopes refused 400, ${x.tooLarge} too large`,
      );
    }
    const line =
      `fuzz summary: ${sum((x) => x.runs)} hostile requests over ${tallies.size} actions ` +
      `(${Math.min(...all.map((x) => x.runs))}–${Math.max(...all.map((x) => x.runs))} each, seed ${SEED}): ` +
      `${sum((x) => x.handled)} reached an action (${sum((x) => x.handled - x.invalid)} past its validation), ` +
      `${sum((x) => x.refused400)} envelopes refused 400, ${sum((x) => x.tooLarge)} refused 413, ` +
      `0 answered 500, 0 leaks, canary unchanged, process alive`;
    t.diagnostic(line);
    console.log(line);
    // Most bodies must get past the envelope to the action, or the fuzz tests only the envelope check.
    assert.ok(sum((x) => x.handled) > 0.7 * sum((x) => x.runs), line);
  });
});
