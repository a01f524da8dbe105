/**
 * The data folder of `npm start` (`.authsvc/` in the package, git-ignored) and the options that point the
 * configuration at it. `npm start` always runs with them; the admin commands use them when they are given no
 * configuration of their own, so that in a clone they find what `npm start` set up (docs/design.md#the-start-folder).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Environment } from '../config/environment.js';
import { readInputs } from '../config/inputs.js';
import { rawValue } from '../config/retrieve.js';
import { PKG_DIR } from '../package-dir.js';
import { ENV_FILE } from './autosetup.js';

export const START_DIR = join(PKG_DIR, '.authsvc');
export const START_ENV_FILE = join(START_DIR, ENV_FILE);

export const startFolderArgv = (): string[] => [
  '--basedir',
  START_DIR,
  '--confvars',
  join(START_DIR, 'confvars.json'),
  '--envfile',
  START_ENV_FILE,
];

/**
 * The items that choose another installation: its folder, and its database. The secret alone does not: a developer
 * exports AUTHSVC_SECRET for a frontend or an example, and their admin commands must still find the folder.
 */
const CHOOSING = ['basedir', 'authdb'];

/**
 * True when argv and the environment choose no installation themselves (no --envfile, --confvars, basedir or
 * authdb): an admin command then reads what `npm start` set up, when it has.
 */
export function usesStartFolder(argv: readonly string[], env: Environment): boolean {
  const { commandLine, confvars, sources } = readInputs(argv, env);
  if (commandLine.envfile !== null || commandLine.confvars !== null || confvars === null) return false;
  const chosen = CHOOSING.some((name) => {
    const item = confvars.items[name];
    return item !== undefined && rawValue(item, sources).source !== 'default';
  });
  return !chosen && existsSync(START_ENV_FILE);
}

/** What to add when the required items are missing and there is no start folder to read them from. */
export function missingConfigurationHint(): string {
  return [
    'give them one of these ways:',
    `  - in a clone, run \`npm start\` once: it sets up ${START_DIR}/, which these commands then read by themselves`,
    '  - --envfile=DIR/.env (with --confvars=DIR/confvars.json), the files `authsvc --autosetup --basedir=DIR` wrote',
    '  - the variables AUTHSVC_SECRET, AUTHSVC_PIISALT and AUTHSVC_AUTHDB, or the options --secret, --piisalt, --authdb',
  ].join('\n');
}
