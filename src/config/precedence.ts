/**
 * The order of an item's sources is the spec's: the environment first (the real one, then the `--envfile`), then
 * the option, then the default. An operator who passes `--port=23439` beside an env file that sets `PORT` would
 * not see their option ignored, so --help and docs/configuration.md state the order in the one sentence below, and
 * start-up warns once for each option a variable overrides (docs/design.md#environment-first-said-once).
 */
import type { Inputs } from './inputs.js';
import { rawValue } from './retrieve.js';

export const PRECEDENCE =
  'Each item is taken from the first of these that sets it: its environment variable, a line of the --envfile, ' +
  'its command-line option, its default; so a variable overrides an option given on the command line ' +
  '(authsvc warns when one does).';

/**
 * One line per item whose command-line option differs from the variable that overrides it: the item, the option and
 * the variable with where it came from. Never a value: the option may be a secret.
 */
export function overriddenOptions(inputs: Inputs): string[] {
  const { confvars, sources, envFile } = inputs;
  if (confvars === null) return [];
  const lines: string[] = [];
  for (const [name, item] of Object.entries(confvars.items)) {
    if (item.cmdline === null) continue;
    const option = sources.options.get(item.cmdline);
    if (option === undefined || option === '') continue;
    const raw = rawValue(item, sources);
    if (raw.source === `--${item.cmdline}` || raw.source === 'default' || String(raw.value) === option) continue;
    const where =
      envFile !== null && envFile.names.has(raw.source) ? `the --envfile ${envFile.path}` : 'the environment';
    lines.push(
      `${name}: the option --${item.cmdline} is not used: ${raw.source} from ${where} overrides it ` +
        '(the environment and the --envfile come before options)',
    );
  }
  return lines;
}
