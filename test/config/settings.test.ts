import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parsePassHash, parsePassPolicy } from '../../src/config/settings.js';
import { DEFAULT_PASS_POLICY } from '../../src/accounts/password-policy.js';

describe('--passpolicy', () => {
  it('takes any subset of the keys in any order; the rest keep their defaults', () => {
    const entries = {
      min_pass_length: fc.integer({ min: 1, max: 1024 }),
      max_unsafe_similarity: fc.integer({ min: 0, max: 100 }),
      max_char_frequency: fc.integer({ min: 1, max: 100 }).map((n) => n / 100),
      min_pwned_matches: fc.integer({ min: 1, max: 1_000_000 }),
    };
    fc.assert(
      fc.property(fc.record(entries, { requiredKeys: [] }), fc.boolean(), (picked, reverse) => {
        const pairs = Object.entries(picked).map(([k, v]) => `${k}:${String(v)}`);
        const parsed = parsePassPolicy((reverse ? pairs.reverse() : pairs).join(';'));
        assert.ok(parsed.ok);
        assert.deepEqual(parsed.value, {
          minPassLength: picked.min_pass_length ?? DEFAULT_PASS_POLICY.minPassLength,
          maxUnsafeSimilarity: picked.max_unsafe_similarity ?? DEFAULT_PASS_POLICY.maxUnsafeSimilarity,
          maxCharFrequency: picked.max_char_frequency ?? DEFAULT_PASS_POLICY.maxCharFrequency,
          minPwnedMatches: picked.min_pwned_matches ?? DEFAULT_PASS_POLICY.minPwnedMatches,
        });
      }),
    );
  });
  it('refuses unknown keys, repeated keys and bad values', () => {
    for (const text of [
      'min_length:12',
      'min_pass_length:0',
      'min_pass_length:x',
      'max_char_frequency:1.5',
      'max_char_frequency:0',
      'max_unsafe_similarity:101',
      'min_pass_length:12;min_pass_length:13',
      'nonsense',
    ]) {
      assert.equal(parsePassPolicy(text).ok, false, text);
    }
  });
  it('never throws on any text', () => {
    fc.assert(fc.property(fc.string(), (text) => void parsePassPolicy(text)));
  });
});

describe('--passhash', () => {
  it('reads argon2id and scrypt parameters', () => {
    assert.deepEqual(parsePassHash('argon2id:m=19456,t=2,p=1'), {
      ok: true,
      value: { kind: 'argon2id', memoryCost: 19456, timeCost: 2, parallelism: 1 },
    });
    assert.deepEqual(parsePassHash('scrypt:logN=17,r=8,p=1'), {
      ok: true,
      value: { kind: 'scrypt', logN: 17, r: 8, p: 1 },
    });
  });
  it('refuses other kinds, missing, extra and out-of-range parameters', () => {
    for (const text of [
      'bcrypt:12',
      'argon2id:m=19456,t=2',
      'argon2id:m=19456,t=2,p=1,x=3',
      'argon2id:m=1,t=2,p=1',
      'scrypt:logN=30,r=8,p=1',
      'argon2id',
    ]) {
      assert.equal(parsePassHash(text).ok, false, text);
    }
  });
});
