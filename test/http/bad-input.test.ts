/**
 * The bad-input sweep: every hostile request gets its status and a one-line body (or an encrypted
 * refusal), nothing in the database changes, no answer is a 500, nothing is logged as an error, and
 * the server keeps serving.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  actionNames,
  actionSpecs,
  fernetEncrypt,
  generateFernetKey,
  parseKeyring,
  sealJson,
} from '../../src/protocol/index.js';
import { rawRequest } from '../helpers/http.js';
import { sessionNewBody, validRequests } from '../helpers/requests.js';
import { startTestServer } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';

let server: TestServer;
let token: string;
let digest: string;

before(async () => {
  server = await startTestServer();
  const opened = await server.call('session-new', { ...sessionNewBody(1), extra_info_json: { a: 1 } });
  assert.ok(opened.success);
  token = opened.response.session_token;
  digest = await server.digest();
});

after(async () => {
  // The server still serves, and nothing logged an error or answered 500.
  const check = await server.call('session-exists', { session_token: token });
  assert.equal(check.success, true);
  assert.deepEqual(
    server.logs.filter((l) => l.level === 'error'),
    [],
  );
  assert.deepEqual(
    server.logs.filter((l) => l['status'] === 500),
    [],
  );
  await server.close();
});

const deep = (levels: number, open: string, close: string): string => open.repeat(levels) + '1' + close.repeat(levels);
/** Seals plaintext bytes as they are (no JSON encoding), with a fixed IV byte. */
const sealRaw = (plaintext: string | Buffer, iv: number): string =>
  Buffer.from(
    fernetEncrypt(
      server.keyring.keys[0],
      Buffer.from(plaintext),
      Math.floor(server.clock.now() / 1000),
      Buffer.alloc(16, iv),
    ),
  ).toString('base64');
const envelope = (request: string, body: unknown): Record<string, unknown> => ({
  request,
  body,
  reqid: 'bad',
  client_ipaddr: '192.0.2.9',
});

async function expectStatus(body: string | Buffer, status: number, label: string): Promise<void> {
  const response = await server.post(body);
  const text = await response.text();
  assert.equal(response.status, status, label);
  assert.match(text, /^HTTP \d{3}: [^\n]+\n$/, `one line of text: ${label}`);
}

describe('bodies that are not ours', () => {
  it('refuses garbage, empty, truncated, non-UTF-8 and wrongly-keyed bodies with 401', async () => {
    const other = parseKeyring(generateFernetKey());
    assert.ok(other);
    const good = server.seal(envelope('session-exists', { session_token: token }));
    const cases: Array<[string, string | Buffer]> = [
      ['empty', ''],
      ['whitespace', ' \n\t '],
      ['garbage', 'hello, world'],
      ['json', '{"request":"session-exists"}'],
      ['truncated', good.slice(0, good.length / 2)],
      ['one char short', good.slice(0, -1)],
      ['invalid UTF-8', Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1])],
      ['NUL bytes', Buffer.alloc(64)],
      ['other key', sealJson(other, envelope('session-exists', { session_token: token }))],
      ['random base64', Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 7) % 256)).toString('base64')],
    ];
    for (const [label, body] of cases) await expectStatus(body, 401, label);
  });

  it('refuses bodies over maxbodysize with 413', async () => {
    await expectStatus('Z'.repeat(2 * 1024 * 1024), 413, 'huge');
  });

  it('refuses what decrypts but is not a UTF-8 JSON object with 400', async () => {
    const raw = (bytes: Buffer): string => sealRaw(bytes, 7);
    const cases: Array<[string, string]> = [
      ['invalid UTF-8 plaintext', raw(Buffer.from([0x7b, 0xff, 0x7d]))],
      ['not JSON', raw(Buffer.from('request=session-exists'))],
      ['empty plaintext', raw(Buffer.alloc(0))],
      ['list', server.seal([1, 2, 3])],
      ['string', server.seal('session-exists')],
      ['null', server.seal(null)],
      ['10,000 levels of lists', raw(Buffer.from(deep(10_000, '[', ']')))],
      ['10,000 levels of objects', raw(Buffer.from(deep(10_000, '{"a":', '}')))],
      [
        'missing reqid',
        server.seal({
          request: 'session-exists',
          body: {},
          client_ipaddr: '192.0.2.9',
        }),
      ],
      ['body a list', server.seal(envelope('session-exists', []))],
      ['body a string', server.seal(envelope('session-exists', 'x'))],
      ['body null', server.seal(envelope('session-exists', null))],
      ['unknown action', server.seal(envelope('user-does-everything', {}))],
      ['prototype action', server.seal(envelope('constructor', {}))],
    ];
    for (const [label, body] of cases) await expectStatus(body, 400, label);
  });
});

describe('hostile but decryptable requests', () => {
  it('ignores __proto__ in the envelope and the body', async () => {
    const text = `{"__proto__": {"request": "session-delete"}, "request": "session-exists", "body": {"__proto__": {"session_token": "${token}"}}, "reqid": 1, "client_ipaddr": "192.0.2.9"}`;
    const response = await server.post(sealRaw(text, 1));
    assert.equal(response.status, 200);
    const reply = server.open(await response.text()) as {
      success: boolean;
      response: { problems?: Array<{ param: string; problem: string }> };
    };
    assert.equal(reply.success, false);
    assert.deepEqual(reply.response.problems, [{ param: 'session_token', problem: 'missing', required_type: 'str' }]);
    assert.equal(({} as Record<string, unknown>)['session_token'], undefined);
  });

  it('answers a 10,000-level item with an invalid-parameters reply', async () => {
    const text = `{"request": "internal-session-edit", "body": {"target_session_token": "${token}", "update_dict": ${deep(10_000, '{"a":', '}')}, "extra": ${deep(10_000, '[', ']')}}, "reqid": 2, "client_ipaddr": "192.0.2.9"}`;
    const response = await server.post(sealRaw(text, 2));
    assert.equal(response.status, 200);
    const reply = server.open(await response.text()) as {
      success: boolean;
      failure_reason?: string;
    };
    assert.equal(reply.failure_reason, 'invalid request parameters');
  });

  it('refuses wrong types and out-of-range values in every item of every action', async () => {
    const valid = validRequests({
      token,
      user: { id: 1, role: 'superuser', email: 'admin@example.org' },
      other: { id: 1, email: 'admin@example.org' },
      victim: { id: 4, email: 'user4@example.org' },
      newcomer: 'jane@example.org',
      password: 'plinth-orchard-vapour-42',
      newPassword: 'quartz-lantern-meadow-77',
      apikey: { tkn: 'x' },
      refreshToken: token,
      lifetimes: { expires_seconds: 60, not_valid_before: 0, refresh_expires: 120, refresh_nbf: 0 },
    });
    const wrongValues: Record<string, unknown[]> = {
      string: [null, 1, 1.5, true, [], {}, 'x'.repeat(100_000), 'nul\u0000', 'lone \udc00', '\ud800'],
      integer: [null, '1', 1.5, true, false, [], {}, 0, -1, 2 ** 31, 1e300, Number.MAX_SAFE_INTEGER],
      boolean: [null, 'true', 1, 0, [], {}],
      number: [null, '0.5', '1', '1e3', 'NaN', 'Infinity', true, [], {}, 0, -0.5, 1.5, 1e300],
      object: [
        null,
        'x',
        1,
        true,
        [],
        { __proto__: null, constructor: 1 },
        JSON.parse('{"__proto__": 1}'),
        { a: 'x\u0000' },
      ],
    };
    // An independent reading of a branch of the schema: is this value acceptable to it?
    type Branch = {
      type?: string;
      maxLength?: number;
      exclusiveMinimum?: number;
      minimum?: number;
      maximum?: number;
    };
    const fits = (branch: Branch, value: unknown): boolean => {
      switch (branch.type) {
        case 'null':
          return value === null;
        case 'boolean':
          return typeof value === 'boolean';
        case 'integer':
          return (
            Number.isInteger(value) &&
            (value as number) >= (branch.minimum ?? -Infinity) &&
            (value as number) <= (branch.maximum ?? Infinity)
          );
        case 'number':
          return (
            typeof value === 'number' &&
            Number.isFinite(value) &&
            value > (branch.exclusiveMinimum ?? -Infinity) &&
            value >= (branch.minimum ?? -Infinity) &&
            value <= (branch.maximum ?? Infinity)
          );
        case 'string':
          return (
            typeof value === 'string' &&
            value.length <= (branch.maxLength ?? Infinity) &&
            !/\0|[\ud800-\udfff]/.test(value)
          );
        default:
          return false; // every object candidate above is malformed on purpose
      }
    };
    let checked = 0;
    for (const name of actionNames) {
      const properties = actionSpecs[name].input.properties as Record<string, Branch & { anyOf?: Branch[] }>;
      for (const [param, schema] of Object.entries(properties)) {
        const branches: Branch[] = schema.anyOf ?? [schema];
        const candidates = [...new Set(branches.flatMap((b) => wrongValues[b.type ?? ''] ?? []))];
        for (const value of candidates.filter((v) => !branches.some((b) => fits(b, v)))) {
          const reply = await server.call(name, {
            ...valid[name],
            [param]: value,
          });
          assert.equal(reply.success, false, `${name}.${param} = ${JSON.stringify(value)?.slice(0, 40)}`);
          const problems = (reply.response as { problems?: Array<{ param: string }> }).problems ?? [];
          assert.deepEqual(
            problems.map((p) => p.param),
            [param],
            `${name}.${param}`,
          );
          checked++;
        }
        const { [param]: _dropped, ...without } = valid[name];
        const required: readonly string[] = actionSpecs[name].input.required ?? [];
        if (required.includes(param)) {
          const reply = await server.call(name, without);
          assert.equal(reply.success, false, `${name} without ${param}`);
          checked++;
        }
      }
    }
    assert.ok(checked > 100, `checked ${checked} bad items`);
    assert.equal(await server.digest(), digest, 'no bad item changed the database');
  });

  it('never answers 500 to random items', async () => {
    // Random items may be valid and change data: a server of its own keeps the digest checks exact.
    const fuzzed = await startTestServer();
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...actionNames),
          fc.dictionary(
            fc.constantFrom(
              'session_token',
              'user_id',
              'ip_address',
              'user_agent',
              'expires',
              'extra_info_json',
              'keep_current_session',
              'update_dict',
              'target_session_token',
              'user_role',
              'action',
              'target_name',
              'target_owner',
              'target_visibility',
              'target_sharedwith',
              'limit_name',
              'value_to_check',
              'after_user_id',
              'by',
              'match',
              'email',
              'password',
              'target_userid',
              'email_type',
            ),
            fc.jsonValue(),
          ),
          async (name, body) => {
            const response = await fuzzed.post(fuzzed.seal(envelope(name, body)));
            assert.equal(response.status, 200);
            await response.arrayBuffer();
          },
        ),
        { numRuns: 150 },
      );
      assert.deepEqual(
        fuzzed.logs.filter((l) => l.level === 'error'),
        [],
      );
    } finally {
      await fuzzed.close();
    }
  });
});

describe('requests that never reach an action', () => {
  it('refuses hosts, methods and paths with one line of text, changing nothing', async () => {
    const body = server.seal(envelope('session-delete', { session_token: token }));
    const cases: Array<[Parameters<typeof rawRequest>[1], number]> = [
      [{ headers: { host: 'attacker.example' }, body }, 401],
      [{ headers: { host: 'localhost@attacker.example' }, body }, 401],
      [{ method: 'GET', body: undefined }, 405],
      [{ method: 'PATCH', body }, 405],
      [{ method: 'POST', path: '/session-delete', body }, 404],
      [{ method: 'GET', path: '/../etc/passwd' }, 404],
    ];
    for (const [options, status] of cases) {
      const response = await rawRequest(server.url, options);
      assert.equal(response.status, status, JSON.stringify({ ...options, body: undefined }));
      assert.match(response.text, /^HTTP \d{3}: [^\n]+\n$/);
    }
    assert.equal(await server.digest(), digest);
  });
});
