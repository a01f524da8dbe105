/**
 * `npm run policy:lint -- FILE... [--format json]`: every problem of each policy, with its position,
 * JSON pointer and a sentence, sorted by position. Exit 0 when every file is clean, 1 when any has
 * problems, 2 when a file cannot be read or the command line is wrong.
 *
 * Text: `FILE:LINE:COLUMN: POINTER: MESSAGE`, the form editors and CI annotate.
 * JSON: `[{"file", "problems": [{"line", "column", "pointer", "kind", "message"}]}]`.
 */
import { readEnvironment } from '../config/environment.js';
import { callerPath } from './caller-path.js';
import { helpAsked } from './help.js';
import { lintFile } from '../services/policy/authoring/lint.js';
import type { PositionedProblem } from '../services/policy/authoring/problems.js';
import { formatProblem } from '../services/policy/authoring/problems.js';

const USAGE = 'usage: npm run policy:lint -- FILE... [--format text|json] (--help for more)\n';

function main(args: readonly string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream): number {
  const help = helpAsked(args, 'lint');
  if (help !== null) {
    out.write(help);
    return 0;
  }
  const files: string[] = [];
  let format = 'text';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--format' || arg.startsWith('--format=')) {
      format = arg === '--format' ? (args[++i] ?? '') : arg.slice('--format='.length);
    } else if (arg.startsWith('--')) {
      err.write(`policy:lint: unknown option ${arg}\n${USAGE}`);
      return 2;
    } else {
      files.push(arg);
    }
  }
  if (files.length === 0 || (format !== 'text' && format !== 'json')) {
    err.write(USAGE);
    return 2;
  }
  let unreadable = false;
  let problems = 0;
  const reports: Array<{ file: string; problems: PositionedProblem[] }> = [];
  for (const file of files) {
    const outcome = lintFile(callerPath(file, readEnvironment()['INIT_CWD']));
    if (!outcome.ok) {
      unreadable = true;
      err.write(`policy:lint: ${outcome.error}\n`);
      continue;
    }
    problems += outcome.problems.length;
    reports.push({ file, problems: outcome.problems });
  }
  if (format === 'json') {
    const plain = reports.map((r) => ({
      file: r.file,
      problems: r.problems.map(({ line, column, pointer, kind, message }) => ({
        line,
        column,
        pointer,
        kind,
        message,
      })),
    }));
    out.write(`${JSON.stringify(plain, null, 2)}\n`);
  } else {
    for (const report of reports) {
      for (const problem of report.problems) out.write(`${report.file}:${formatProblem(problem)}\n`);
      const n = report.problems.length;
      out.write(`${report.file}: ${n === 0 ? 'no problems' : `${n} problem${n === 1 ? '' : 's'}`}\n`);
    }
  }
  if (unreadable) return 2;
  return problems > 0 ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2), process.stdout, process.stderr);
