/**
 * The command line: `--name=value` or `--name value` for items, plus the flags that are not items
 * (`--help`, `--version`, `--autosetup`, `--force`, `--envfile`, `--confvars`).
 */
export interface CommandLine {
  readonly help: boolean;
  readonly version: boolean;
  readonly autosetup: boolean;
  readonly force: boolean;
  readonly envfile: string | null;
  readonly confvars: string | null;
  /** Item options by their `cmdline` name (checked against the confvars file later). */
  readonly options: ReadonlyMap<string, string>;
  readonly problems: readonly string[];
}

const FLAGS = new Set(['help', 'version', 'autosetup', 'force']);
const META = new Set(['envfile', 'confvars']);

export function parseCommandLine(argv: readonly string[]): CommandLine {
  const options = new Map<string, string>();
  const flags = new Set<string>();
  const meta = new Map<string, string>();
  const problems: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '-h' || arg === '-v') {
      flags.add(arg === '-h' ? 'help' : 'version');
      continue;
    }
    const match = /^--([a-z0-9_-]+)(?:=(.*))?$/is.exec(arg);
    if (match === null) {
      problems.push(`unexpected argument "${arg}" (options look like --name=value)`);
      continue;
    }
    const name = (match[1] ?? '').toLowerCase();
    let value = match[2];
    if (FLAGS.has(name)) {
      if (value !== undefined && !['1', 'true', 'yes'].includes(value.toLowerCase())) {
        problems.push(`--${name} takes no value`);
      } else flags.add(name);
      continue;
    }
    if (value === undefined) {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) {
        problems.push(`--${name} needs a value`);
        continue;
      }
      value = next;
      i++;
    }
    if (META.has(name)) meta.set(name, value);
    else options.set(name, value);
  }
  return {
    help: flags.has('help'),
    version: flags.has('version'),
    autosetup: flags.has('autosetup'),
    force: flags.has('force'),
    envfile: meta.get('envfile') ?? null,
    confvars: meta.get('confvars') ?? null,
    options,
    problems,
  };
}
