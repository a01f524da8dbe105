/**
 * `npm run policy:diff -- OLD NEW`: every access and limit decision that differs between two
 * policies, as Markdown tables for a pull request (diff.ts says which requests are compared). Exit 0
 * when none differ, 1 when some do, 2 when a policy cannot be read or is invalid (with its problems).
 */
import { readEnvironment } from '../config/environment.js';
import { callerPath } from './caller-path.js';
import { helpAsked } from './help.js';
import { diffPolicies } from '../services/policy/authoring/diff.js';
import type { DiffSide } from '../services/policy/authoring/diff.js';
import { formatDiff } from '../services/policy/authoring/diff-format.js';
import { compilePolicyFile } from '../services/policy/authoring/policy-file.js';

function load(path: string): DiffSide | string[] {
  const compiled = compilePolicyFile(callerPath(path, readEnvironment()['INIT_CWD']));
  return compiled.ok ? { doc: compiled.document, compiled: compiled.compiled } : compiled.problems;
}

function main(args: readonly string[]): number {
  const help = helpAsked(args, 'diff');
  if (help !== null) {
    process.stdout.write(help);
    return 0;
  }
  if (args.length !== 2 || args.some((a) => a.startsWith('--'))) {
    process.stderr.write('usage: npm run policy:diff -- OLD NEW (--help for more)\n');
    return 2;
  }
  const [beforePath = '', afterPath = ''] = args;
  const before = load(beforePath);
  const after = load(afterPath);
  let failed = false;
  for (const [path, side] of [
    [beforePath, before],
    [afterPath, after],
  ] as const) {
    if (Array.isArray(side)) {
      failed = true;
      process.stderr.write(`policy:diff: ${path} is not a valid policy:\n${side.map((p) => `  - ${p}\n`).join('')}`);
    }
  }
  if (failed || Array.isArray(before) || Array.isArray(after)) return 2;
  const diff = diffPolicies(before, after);
  process.stdout.write(formatDiff(diff, { before: beforePath, after: afterPath }));
  return diff.access.length + diff.limits.length > 0 ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));
