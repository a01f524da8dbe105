/**
 * The admin command line's own words (`user lock 42 --yes`) apart from the configuration options
 * (`--basedir=/srv/authsvc`, `--envfile …`), which go to the server's own parser unchanged, so that
 * both resolve the configuration the same way.
 */

/** The groups of admin commands: `authsvc <group> <verb> …`. */
export const GROUPS = ['user', 'session', 'policy'] as const;
export type Group = (typeof GROUPS)[number];

export const isAdminCommand = (argv: readonly string[]): boolean =>
  (GROUPS as readonly string[]).includes(argv[0] ?? '');

export interface AdminArgs {
  readonly group: Group;
  readonly verb: string | null;
  readonly positionals: readonly string[];
  readonly json: boolean;
  readonly yes: boolean;
  readonly help: boolean;
  readonly name: string | null;
  readonly role: string | null;
  readonly user: string | null;
  /** What is left for the configuration: options of items, --envfile, --confvars. */
  readonly configArgv: readonly string[];
  readonly problems: readonly string[];
}

const BOOLEAN = new Set(['json', 'yes', 'help']);
const VALUED = new Set(['name', 'role', 'user']);
/** The server's flags that take no value (config/cli.ts): they must not swallow the next word. */
const CONFIG_FLAGS = new Set(['version', 'autosetup', 'force']);

/**
 * A password on the command line shows in `ps`, in shell history and in CI logs; it is refused
 * rather than ignored, with the way that works.
 */
export const PASSWORD_ON_ARGV =
  'a password is never read from the command line (it would show in the process list and the shell history): ' +
  'type it at the prompt, or pipe it on stdin (e.g. `printf "%s\\n" "$PASSWORD" | authsvc user add …`)';

export function parseAdminArgs(argv: readonly string[]): AdminArgs {
  const group = argv[0] as Group;
  const positionals: string[] = [];
  const configArgv: string[] = [];
  const problems: string[] = [];
  const flags = new Set<string>();
  const values = new Map<string, string>();
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '-h') {
      flags.add('help');
      continue;
    }
    if (arg === '-y') {
      flags.add('yes');
      continue;
    }
    const match = /^--([a-z0-9_-]+)(?:=(.*))?$/is.exec(arg);
    if (match === null) {
      positionals.push(arg);
      continue;
    }
    const name = (match[1] ?? '').toLowerCase();
    const inline = match[2];
    if (/pass(word|wd)?$/.test(name) && !name.startsWith('email')) {
      problems.push(`--${name}: ${PASSWORD_ON_ARGV}`);
      // Its value, if separate, is not a positional either.
      if (inline === undefined && argv[i + 1] !== undefined && !(argv[i + 1] ?? '').startsWith('-')) i++;
      continue;
    }
    if (BOOLEAN.has(name)) {
      if (inline !== undefined) problems.push(`--${name} takes no value`);
      flags.add(name);
      continue;
    }
    const next = argv[i + 1];
    const takesNext = inline === undefined && next !== undefined && !next.startsWith('--');
    if (VALUED.has(name)) {
      const value = inline ?? (takesNext ? next : undefined);
      if (value === undefined) problems.push(`--${name} needs a value`);
      else values.set(name, value);
      if (takesNext) i++;
      continue;
    }
    // A configuration option: passed on as written, with its separate value when it has one.
    configArgv.push(arg);
    if (takesNext && !CONFIG_FLAGS.has(name)) {
      configArgv.push(next);
      i++;
    }
  }
  return {
    group,
    verb: positionals[0] ?? null,
    positionals: positionals.slice(1),
    json: flags.has('json'),
    yes: flags.has('yes'),
    help: flags.has('help'),
    name: values.get('name') ?? null,
    role: values.get('role') ?? null,
    user: values.get('user') ?? null,
    configArgv,
    problems,
  };
}
