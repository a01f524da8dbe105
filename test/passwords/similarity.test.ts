import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { similarity } from '../../src/accounts/password-policy.js';

/** Made by Python's difflib (the reference's measure) with scripts/make-difflib-vectors.py. */
const table = JSON.parse(readFileSync(new URL('../vectors/difflib-ratios.json', import.meta.url), 'utf8')) as Array<{
  a: string;
  b: string;
  ratio: number;
}>;

describe('password similarity', () => {
  it("gives the reference's examples", () => {
    assert.equal(similarity('password', 'testuser@test.org'), 32);
    assert.equal(similarity('password', 'test user').toFixed(1), '35.3');
    assert.equal(similarity('testuser123', 'test user'), 80);
  });

  it(`equals Python's difflib SequenceMatcher.ratio() × 100 on ${table.length} pairs (autojunk and astral characters included)`, () => {
    for (const { a, b, ratio } of table) {
      assert.ok(
        Math.abs(similarity(a, b) - ratio) < 1e-9,
        `${JSON.stringify(a)} vs ${JSON.stringify(b)}: ${similarity(a, b)} ≠ ${ratio}`,
      );
    }
  });
});
