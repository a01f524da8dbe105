/**
 * Every example under examples/ is a clean policy whose decision tables all pass: `npm test` keeps
 * the examples true.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PKG_DIR } from '../../../src/package-dir.js';
import { loadFixtureFile } from '../../../src/services/policy/authoring/fixture-load.js';
import { runFixture } from '../../../src/services/policy/authoring/fixture-run.js';
import { lintFile } from '../../../src/services/policy/authoring/lint.js';
import { loadPolicyFile } from '../../../src/services/policy/load.js';
import { formatProblem } from '../../../src/services/policy/authoring/problems.js';

const EXAMPLES = join(PKG_DIR, 'examples');

describe('examples/', () => {
  // The policy examples; examples/ also holds client examples (examples/python/), which have no policy.
  const examples = readdirSync(EXAMPLES, { withFileTypes: true }).filter(
    (e) => e.isDirectory() && existsSync(join(EXAMPLES, e.name, 'policy.json')),
  );
  it('has the document-sharing example', () => {
    assert.ok(examples.some((e) => e.name === 'document-sharing'));
  });

  for (const example of examples) {
    it(`${example.name}: lints clean and passes its decision tables`, () => {
      const root = join(EXAMPLES, example.name);
      const linted = lintFile(join(root, 'policy.json'));
      assert.ok(linted.ok);
      assert.deepEqual(linted.problems.map(formatProblem), []);
      const loaded = loadPolicyFile(join(root, 'policy.json'));
      assert.ok(loaded.ok);
      const tables = readdirSync(join(root, 'fixtures')).filter((f) => f.endsWith('.json'));
      assert.ok(tables.length > 0);
      let cases = 0;
      for (const table of tables) {
        const fixture = loadFixtureFile(join(root, 'fixtures', table));
        assert.ok(fixture.ok, fixture.ok ? '' : fixture.problems.join('\n'));
        const run = runFixture(loaded.policy.compiled, fixture.fixture);
        assert.deepEqual(run.failures, [], table);
        cases += run.cases;
      }
      assert.ok(cases >= 50, `${cases} cases`);
    });
  }
});
