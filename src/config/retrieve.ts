/**
 * Retrieval of one item's value (spec: Retrieval of configuration items): the environment first (the
 * real one, then the `--envfile`), then the command-line option, then the default; then
 * `readable_from_file` (the value itself, a file named by it, or a URL fetched), then
 * `postprocess_value`.
 */
import { readFileSync, statSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ConfVar } from './confvars.js';
import { envNames } from './confvars.js';
import type { Environment } from './environment.js';
import { fetchValue } from './http-fetch.js';
import { PKG_DIR } from '../package-dir.js';

export interface Sources {
  /** The real environment merged over the `--envfile` values. */
  readonly env: Environment;
  readonly options: ReadonlyMap<string, string>;
}

export type Raw = string | number | boolean | null;

export interface RawValue {
  readonly value: Raw;
  /** Where it came from, for messages: an env name, `--option`, or `default`. */
  readonly source: string;
}

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'authsvc';
  }
}

/** Placeholders a default may hold, so the shipped file stays machine-independent. */
function expandDefault(value: string): string {
  return value
    .replaceAll('[[pkgdir]]', PKG_DIR)
    .replaceAll('[[hostname]]', hostname())
    .replaceAll('[[osuser]]', osUser());
}

export function rawValue(item: ConfVar, sources: Sources): RawValue {
  for (const name of envNames(item)) {
    const value = sources.env[name];
    if (value !== undefined && value !== '') return { value, source: name };
  }
  if (item.cmdline !== null) {
    const value = sources.options.get(item.cmdline);
    if (value !== undefined && value !== '') return { value, source: `--${item.cmdline}` };
  }
  const fallback = typeof item.default === 'string' ? expandDefault(item.default) : item.default;
  return { value: fallback === '' ? null : fallback, source: 'default' };
}

export type Retrieved = { readonly value: Raw } | { readonly problem: string };

/** The value itself, or the content of the file it names (a relative path resolves against basedir). */
export function valueOrFileContent(value: string, basedir: string): Retrieved {
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

/** Calls `module.js::function` (the module path relative to the confvars file's folder). */
async function postprocess(reference: string, value: Raw, confvarsDir: string): Promise<Retrieved> {
  const separator = reference.lastIndexOf('::');
  const modulePath = reference.slice(0, separator);
  const functionName = reference.slice(separator + 2);
  const url = pathToFileURL(isAbsolute(modulePath) ? modulePath : resolve(confvarsDir, modulePath)).href;
  let module: Record<string, unknown>;
  try {
    module = (await import(url)) as Record<string, unknown>;
  } catch (error) {
    return { problem: `postprocess_value: cannot load ${modulePath}: ${(error as Error).message}` };
  }
  const fn = module[functionName];
  if (typeof fn !== 'function') return { problem: `postprocess_value: ${modulePath} has no function ${functionName}` };
  try {
    const result: unknown = await (fn as (v: Raw) => unknown)(value);
    if (result === null || ['string', 'number', 'boolean'].includes(typeof result)) return { value: result as Raw };
    return { problem: `postprocess_value: ${functionName} returned a ${typeof result}, not a value` };
  } catch (error) {
    return { problem: `postprocess_value: ${functionName} failed: ${(error as Error).message}` };
  }
}

export interface RetrieveContext {
  readonly basedir: string;
  readonly confvarsDir: string;
  /** Per item, where its postprocess module resolves when not confvarsDir (the file that defined it). */
  readonly itemDirs?: Readonly<Record<string, string>>;
  readonly env: Environment;
}

export async function retrieve(item: ConfVar, raw: RawValue, context: RetrieveContext): Promise<Retrieved> {
  let retrieved: Retrieved = { value: raw.value };
  const rff = item.readable_from_file;
  if (typeof raw.value === 'string' && rff !== false) {
    retrieved =
      rff === 'string' ? valueOrFileContent(raw.value, context.basedir) : await fetchValue(raw.value, rff, context.env);
  }
  if ('problem' in retrieved || item.postprocess_value === null || raw.value === null) return retrieved;
  return postprocess(item.postprocess_value, retrieved.value, context.confvarsDir);
}

/** Every item at once (HTTP fetches run in parallel), by name. */
export async function retrieveAll(
  items: Readonly<Record<string, ConfVar>>,
  sources: Sources,
  context: RetrieveContext,
): Promise<ReadonlyMap<string, Retrieved>> {
  const entries = await Promise.all(
    Object.entries(items).map(async ([name, item]) => {
      const confvarsDir = context.itemDirs?.[name] ?? context.confvarsDir;
      return [name, await retrieve(item, rawValue(item, sources), { ...context, confvarsDir })] as const;
    }),
  );
  return new Map(entries);
}
