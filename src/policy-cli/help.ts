/** `--help` of the three policy commands: the usage line, what the command does and its exit codes. */

export const HELP = {
  lint: [
    'usage: npm run policy:lint -- FILE... [--format text|json]',
    '',
    'Checks each permissions policy with every check start-up applies, and prints every problem with its',
    'position: FILE:LINE:COLUMN: POINTER: MESSAGE (text), or one JSON array (--format json).',
    '',
    'Exit codes: 0 every file is clean; 1 some file has problems; 2 a file cannot be read or the command line is wrong.',
    'The rule language and the tools: docs/policy.md',
  ],
  diff: [
    'usage: npm run policy:diff -- OLD NEW',
    '',
    'Prints, as Markdown tables for a pull request, every access and limit decision that differs between two',
    'policies (the roles, actions and items both name).',
    '',
    'Exit codes: 0 no decision differs; 1 some differ; 2 a policy cannot be read or is invalid.',
    'The rule language and the tools: docs/policy.md',
  ],
  test: [
    'usage: npm run policy:test -- POLICY TABLE...',
    '',
    'Runs decision tables (JSON files of requests and the decisions expected) against a policy, and prints',
    'every failing case with the explanation of the decision taken.',
    '',
    'Exit codes: 0 every case passes; 1 some case fails; 2 the policy or a table cannot be read.',
    'The rule language and the tools: docs/policy.md',
  ],
} as const;

/** The help of `command`, when the arguments ask for it. */
export function helpAsked(args: readonly string[], command: keyof typeof HELP): string | null {
  return args.some((a) => a === '--help' || a === '-h') ? `${HELP[command].join('\n')}\n` : null;
}
