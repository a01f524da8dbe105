import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_RATE_POLICY,
  parseRateLimits,
  STRICT_ACTION_LIMITS,
} from '../../src/services/admission/rate-limits.js';
import { ACTION_NAMES } from './fixtures.js';

describe('the ratelimits item', () => {
  it('defaults to the spec: group limits, burst 150 and the strict per-action table', () => {
    const parsed = parseRateLimits('', ACTION_NAMES);
    assert.deepEqual(parsed, { ok: true, value: DEFAULT_RATE_POLICY });
    assert.deepEqual(
      { ...DEFAULT_RATE_POLICY, actions: undefined },
      { ipaddr: 720, user: 480, session: 600, apikey: 720, burst: 150, actions: undefined },
    );
    assert.equal(STRICT_ACTION_LIMITS.size, 19);
    // Every action that checks a password has a strict limit (docs/design.md#one-credential-check).
    const checks = ['user-login', 'user-changepass', 'user-changepass-nosession', 'user-delete'];
    // …and every action that checks a second factor or a passkey (docs/design.md#second-factors).
    const factors = ['user-login-secondfactor', 'user-stepup', 'user-totp-confirm', 'user-login-passkey'];
    for (const action of [...checks, ...factors, 'user-passkey-register']) {
      assert.ok(STRICT_ACTION_LIMITS.has(action), action);
    }
    assert.equal(STRICT_ACTION_LIMITS.get('user-changepass-nosession'), 5);
    assert.equal(STRICT_ACTION_LIMITS.get('user-delete'), 5);
    assert.equal(STRICT_ACTION_LIMITS.get('user-sendemail-signup'), 2);
    assert.equal(STRICT_ACTION_LIMITS.get('apikey-refresh-nosession'), 30);
  });

  it('turns limiting off with none, in any case', () => {
    assert.deepEqual(parseRateLimits(' NoNe ', ACTION_NAMES), { ok: true, value: null });
  });

  it('merges group values and action overrides over the defaults', () => {
    const parsed = parseRateLimits('session:120; burst:150;user-login:50; user-list:10', ACTION_NAMES);
    assert.ok(parsed.ok && parsed.value !== null);
    assert.equal(parsed.value.session, 120);
    assert.equal(parsed.value.ipaddr, 720);
    assert.equal(parsed.value.actions.get('user-login'), 50);
    assert.equal(parsed.value.actions.get('user-list'), 10);
    assert.equal(parsed.value.actions.get('user-new'), 5);
  });

  it('reports every problem at once: unknown keys, unknown actions, bad values, repeats', () => {
    const parsed = parseRateLimits(
      'user-lgin:5; ipaddr:0; burst:lots; bogus; foo:1; session:1; session:2',
      ACTION_NAMES,
    );
    assert.equal(parsed.ok, false);
    assert.ok(!parsed.ok);
    assert.equal(parsed.problems.length, 6, parsed.problems.join('\n'));
    assert.match(parsed.problems.join('\n'), /user-lgin/);
    assert.match(parsed.problems.join('\n'), /"session" is given twice/);
  });

  it('refuses numbers too large to keep GCRA times exact', () => {
    assert.equal(parseRateLimits('ipaddr:10000001', ACTION_NAMES).ok, false);
    assert.equal(parseRateLimits('ipaddr:10000000', ACTION_NAMES).ok, true);
  });
});
