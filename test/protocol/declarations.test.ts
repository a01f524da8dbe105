import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  actionNames,
  actionSpecs,
  APIKEY_RATE,
  COMMON_FAILURES,
  emailBucketKey,
  FAILURE_CODES,
  groupBucketKey,
  INTERNAL_RATE,
  SESSION_RATE,
  USER_EMAIL_RATE,
  USER_RATE,
} from '../../src/protocol/index.js';
import type { RateClass } from '../../src/protocol/index.js';
import { failures } from '../../src/domain/errors.js';
import { registry } from '../../src/actions/registry.js';

const IP = '203.0.113.7';

/** The reference's rule: the group by name prefix; email-tied are the three actions that send email. */
const EMAIL_TIED = new Set(['user-sendemail-signup', 'user-sendemail-forgotpass', 'user-set-emailsent']);
function expectedRate(name: string): RateClass {
  if (name.startsWith('session-')) return SESSION_RATE;
  if (name.startsWith('apikey-')) return APIKEY_RATE;
  if (name.startsWith('internal-')) return INTERNAL_RATE;
  assert.ok(name.startsWith('user-'), `${name} has a known prefix`);
  return EMAIL_TIED.has(name) ? USER_EMAIL_RATE : USER_RATE;
}

describe('action declarations', () => {
  it('give every action the rate class of its name prefix', () => {
    for (const name of actionNames) assert.deepEqual(actionSpecs[name].rate, expectedRate(name), name);
  });
  it('list only catalogued failure codes, never a common one, each once', () => {
    const known = new Set<string>(FAILURE_CODES);
    const common = new Set<string>(COMMON_FAILURES);
    for (const name of actionNames) {
      const declared: readonly string[] = actionSpecs[name].failures;
      assert.equal(new Set(declared).size, declared.length, `${name}: duplicates`);
      for (const code of declared) {
        assert.ok(known.has(code) && !common.has(code), `${name}: ${code}`);
      }
    }
  });
  it('have an end-user message on the server for exactly the declared failures', () => {
    for (const name of actionNames) {
      assert.deepEqual(
        Object.keys(registry[name].messages.failures).sort(),
        [...actionSpecs[name].failures].sort(),
        name,
      );
    }
  });
  it('keep ignoring extra body items (no additionalProperties: false on inputs)', () => {
    for (const name of actionNames) {
      assert.notEqual(
        (actionSpecs[name].input as { additionalProperties?: unknown }).additionalProperties,
        false,
        name,
      );
    }
  });
  it('map every failure code to a reason and a status in the server catalogue', () => {
    assert.deepEqual(Object.keys(failures).sort(), [...FAILURE_CODES].sort());
  });
});

describe('the group bucket key', () => {
  it('is the session token with the IP for session actions, or the IP alone without a token', () => {
    assert.equal(groupBucketKey(SESSION_RATE, { session_token: 'abc' }, IP), `session|${IP}|session_token|abc`);
    assert.equal(groupBucketKey(SESSION_RATE, { ip_address: '10.0.0.1', user_id: 4 }, IP), `session|${IP}`);
  });
  it('is the email, else email_address, else user_id, else session_token for user actions', () => {
    const body = { email: 'A@Example.org', email_address: 'b@x.org', user_id: 9, session_token: 't' };
    assert.equal(groupBucketKey(USER_RATE, body, IP), `user|${IP}|email|a@example.org`);
    assert.equal(groupBucketKey(USER_RATE, { ...body, email: undefined }, IP), `user|${IP}|email_address|b@x.org`);
    assert.equal(groupBucketKey(USER_RATE, { user_id: 9, session_token: 't' }, IP), `user|${IP}|user_id|9`);
    assert.equal(groupBucketKey(USER_RATE, { session_token: 't' }, IP), `user|${IP}|session_token|t`);
    assert.equal(groupBucketKey(USER_RATE, {}, IP), `user|${IP}`);
  });
  it("is the API key's tkn, else session_token, else user_id for apikey actions", () => {
    const body = { apikey_dict: { tkn: 'k1', uid: 3 }, session_token: 's', user_id: 3 };
    assert.equal(groupBucketKey(APIKEY_RATE, body, IP), `apikey|${IP}|apikey_dict.tkn|k1`);
    assert.equal(groupBucketKey(APIKEY_RATE, { ...body, apikey_dict: 'k1' }, IP), `apikey|${IP}|session_token|s`);
    assert.equal(groupBucketKey(APIKEY_RATE, { user_id: 3 }, IP), `apikey|${IP}|user_id|3`);
  });
  it('does not exist for internal actions (per IP only)', () => {
    assert.equal(groupBucketKey(INTERNAL_RATE, { session_token: 't' }, IP), null);
  });
  it('skips items that could not pass validation: wrong type, empty, oversized, not an id', () => {
    const fallback = `user|${IP}|session_token|t`;
    for (const bad of [{ email: 5 }, { email: '' }, { email: 'x'.repeat(600) }, { user_id: '9' }, { user_id: 0 }]) {
      assert.equal(groupBucketKey(USER_RATE, { ...bad, session_token: 't' }, IP), fallback, JSON.stringify(bad));
    }
  });
  it('never reads inherited properties', () => {
    const body = JSON.parse('{"__proto__": {"tkn": "x"}}') as Record<string, unknown>;
    assert.equal(
      groupBucketKey(APIKEY_RATE, { apikey_dict: Object.create({ tkn: 'x' }) as object }, IP),
      `apikey|${IP}`,
    );
    assert.equal(groupBucketKey(APIKEY_RATE, body, IP), `apikey|${IP}`);
  });
  it('cannot be forged by a value holding the separator', () => {
    const a = groupBucketKey(SESSION_RATE, { session_token: `x|1.2.3.4` }, '5.6.7.8');
    const b = groupBucketKey(SESSION_RATE, { session_token: 'x' }, '1.2.3.4|5.6.7.8');
    assert.notEqual(a, b);
  });
});

describe('the per-address bucket key', () => {
  it('is the normalised email, else email_address, of email-tied actions', () => {
    assert.equal(emailBucketKey(USER_EMAIL_RATE, { email: ' Who@Example.ORG ' }), 'email|who@example.org');
    assert.equal(emailBucketKey(USER_EMAIL_RATE, { email_address: 'b@x.org' }), 'email|b@x.org');
  });
  it('is null when the body has no address, or the action is not email-tied', () => {
    assert.equal(emailBucketKey(USER_EMAIL_RATE, { user_id: 3 }), null);
    assert.equal(emailBucketKey(USER_RATE, { email: 'a@x.org' }), null);
  });
});
