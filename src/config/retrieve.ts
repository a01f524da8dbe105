/**
 * Retrieval of raw item values: the environment first, then the command-line option, then the
 * default (spec: "The environment is consulted first, then the command-line option"), and
 * `readable_from_file` applied.
 */
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { ConfVar, ConfVars } from './confvars.js';
import { envNames } from './confvars.js';
import type { Environment } from './environment.js';
import { PKG_DIR } from './paths.js';

export interface ParsedArgs {
  readonly options: ReadonlyMap<string, string>;
  readonly problems: readonly string[];
}

/** `--name=value` or `--name value`; every option must be an item's `cmdline`. */
export function parseArgs(argv: readonly string[], confvars: ConfVars): ParsedArgs {
  const known = new Set(
    Object.values(confvars)
      .map((item) => item.cmdline)
      .filter((name): name is string => name !== null),
  );
  const options = new Map<string, string>();
  const problems: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const match = /^--([a-z0-9_-]+)(?:=(.*))?$/is.exec(arg);
    if (match === null) {
      problems.push(`unexpected argument "${arg}" (options look like --name=value)`);
      continue;
    }
    const name = (match[1] ?? '').toLowerCase();
    let value = match[2];
    if (value === undefined) {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) {
        problems.push(`--${name} needs a value`);
        continue;
      }
      value = next;
      i++;
    }
    if (!known.has(name)) problems.push(`unknown option --${name}`);
    else options.set(name, value);
  }
  return { options, problems };
}

export interface RawValue {
  readonly value: string | number | boolean | null;
  /** Where it came from, for messages: an env name, `--option`, or `default`. */
  readonly source: string;
}

export function rawValue(item: ConfVar, env: Environment, options: ReadonlyMap<string, string>): RawValue {
  for (const name of envNames(item)) {
    const value = env[name];
    if (value !== undefined && value !== '') return { value, source: name };
  }
  if (item.cmdline !== null) {
    const value = options.get(item.cmdline);
    if (value !== undefined && value !== '') return { value, source: `--${item.cmdline}` };
  }
  const fallback = typeof item.default === 'string' ? item.default.replaceAll('[[pkgdir]]', PKG_DIR) : item.default;
  return { value: fallback === '' ? null : fallback, source: 'default' };
}

/**
 * `readable_from_file: "string"`: the value itself, or the content of the file it names (a relative
 * path resolves against basedir).
 */
export function readableFromFile(value: string, basedir: string): { value: string } | { problem: string } {
  const path = isAbsolute(value) ? value : resolve(basedir, value);
  let isFile = false;
  try {
    isFile = statSync(path).isFile();
  } catch {
    return { value }; // no such file: the value is used directly
  }
  if (!isFile) return { value };
  try {
    return { value: readFileSync(path, 'utf8').trim() };
  } catch (error) {
    return { problem: `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
}
