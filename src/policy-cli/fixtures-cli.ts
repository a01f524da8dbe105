/**
 * `npm run policy:test -- POLICY TABLE...`: runs decision tables against a policy. Prints every
 * failing case with the explanation of the decision taken; exit 0 when all pass, 1 when any fails,
 * 2 when the policy or a table cannot be read.
 */
import { readEnvironment } from '../config/environment.js';
import { callerPath } from './caller-path.js';
import { helpAsked } from './help.js';
import { loadFixtureFile } from '../services/policy/authoring/fixture-load.js';
import { matrixSize, runFixture } from '../services/policy/authoring/fixture-run.js';
import { compilePolicyFile } from '../services/policy/authoring/policy-file.js';

function main(args: readonly string[]): number {
  const help = helpAsked(args, 'test');
  if (help !== null) {
    process.stdout.write(help);
    return 0;
  }
  const initCwd = readEnvironment()['INIT_CWD'];
  const [policyPath, ...fixturePaths] = args;
  if (policyPath === undefined || fixturePaths.length === 0) {
    process.stderr.write('usage: npm run policy:test -- POLICY TABLE... (--help for more)\n');
    return 2;
  }
  const loaded = compilePolicyFile(callerPath(policyPath, initCwd));
  if (!loaded.ok) {
    process.stderr.write(`policy:test: the policy is invalid:\n${loaded.problems.map((p) => `  - ${p}\n`).join('')}`);
    return 2;
  }
  const policy = loaded.compiled;
  let cases = 0;
  let failed = 0;
  let unreadable = false;
  const covered = new Set<string>();
  for (const path of fixturePaths) {
    const fixture = loadFixtureFile(callerPath(path, initCwd));
    if (!fixture.ok) {
      unreadable = true;
      process.stderr.write(`${path}: not a decision table:\n${fixture.problems.map((p) => `  - ${p}\n`).join('')}`);
      continue;
    }
    const run = runFixture(policy, fixture.fixture);
    cases += run.cases;
    failed += run.failures.length;
    run.covered.forEach((key) => covered.add(key));
    for (const f of run.failures) {
      const why = f.explanation === null ? '' : ` (${f.explanation.check}: ${f.explanation.reason})`;
      process.stdout.write(`FAIL ${path} ${f.row} ${f.label}: expected ${f.expected}, got ${f.got}${why}\n`);
    }
  }
  process.stdout.write(
    `${cases} cases, ${failed} failed; the tables cover ${covered.size} of the ${matrixSize(policy)} cells of the access matrix\n`,
  );
  if (unreadable) return 2;
  return failed > 0 ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));
