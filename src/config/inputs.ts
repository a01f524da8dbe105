/**
 * What start-up reads before any item: the command line, the configuration-variables file and the
 * `--envfile`, merged under the real environment (which wins).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseCommandLine } from './cli.js';
import type { CommandLine } from './cli.js';
import { loadConfVars } from './confvars.js';
import type { ConfVars } from './confvars.js';
import { parseEnvFile } from './envfile.js';
import type { Environment } from './environment.js';
import { SHIPPED_CONFVARS } from '../package-dir.js';
import type { Sources } from './retrieve.js';

/** What start-up reads before any item: the command line, the confvars file and the env file. */
export interface Inputs {
  readonly commandLine: CommandLine;
  readonly confvars: ConfVars | null;
  readonly sources: Sources;
  /** The `--envfile` and the names whose value came from it (the real environment did not override them). */
  readonly envFile: { readonly path: string; readonly names: ReadonlySet<string> } | null;
  readonly problems: readonly string[];
}

/** The package's items, with a `--confvars` file's items laid over them. */
function readConfVars(path: string | null, problems: string[]): ConfVars | null {
  let confvarsPath = SHIPPED_CONFVARS;
  try {
    const shipped = loadConfVars(confvarsPath, resolve(confvarsPath, '..'));
    if (path === null) return shipped;
    confvarsPath = resolve(path);
    return loadConfVars(confvarsPath, resolve(confvarsPath, '..'), shipped);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    problems.push(
      `--confvars: ${code === undefined ? (error as Error).message : `cannot read ${confvarsPath} (${code})`}`,
    );
    return null;
  }
}

function readEnvFileValues(file: string | null, problems: string[]): Record<string, string> {
  if (file === null) return {};
  const path = resolve(file);
  try {
    const parsed = parseEnvFile(readFileSync(path, 'utf8'), path);
    problems.push(...parsed.problems.map((p) => `--envfile: ${p}`));
    return { ...parsed.values };
  } catch (error) {
    problems.push(`--envfile: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    return {};
  }
}

export function readInputs(argv: readonly string[], env: Environment): Inputs {
  const commandLine = parseCommandLine(argv);
  const problems = [...commandLine.problems];
  const confvars = readConfVars(commandLine.confvars, problems);
  // The real environment wins over the file (the file is for testing and development).
  const fromFile = readEnvFileValues(commandLine.envfile, problems);
  const merged: Record<string, string | undefined> = { ...fromFile };
  for (const [name, value] of Object.entries(env)) if (value !== undefined && value !== '') merged[name] = value;
  const envFile =
    commandLine.envfile === null
      ? null
      : {
          path: resolve(commandLine.envfile),
          names: new Set(Object.keys(fromFile).filter((name) => merged[name] === fromFile[name])),
        };
  return { commandLine, confvars, sources: { env: merged, options: commandLine.options }, envFile, problems };
}
