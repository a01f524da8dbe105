/**
 * The configuration-variables file: for every item, where it is read from and how (spec: Retrieval
 * of configuration items). It defines items; it never holds a secret. The installed package's file
 * always defines every item; a `--confvars` file (the copy in `.authsvc/` included) only adds or
 * overrides items, so a copy written by an older release keeps starting after an upgrade.
 */
import { readFileSync } from 'node:fs';

export type ItemType = 'str' | 'int' | 'float' | 'bool';

export interface HttpOptions {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly data?: string | null;
  /** Seconds (a float). */
  readonly timeout?: number;
}

/** `["http", {method, headers, data, timeout}, "string"|"json", "dotted.key.path"?]` */
export type HttpRetrieval = readonly ['http', HttpOptions, 'string' | 'json', string?];

export type ReadableFromFile = false | 'string' | HttpRetrieval;

export interface ConfVar {
  readonly env: string | readonly string[] | null;
  readonly cmdline: string | null;
  readonly type: ItemType;
  readonly default: string | number | boolean | null;
  readonly help: string;
  readonly readable_from_file: ReadableFromFile;
  /** `path/to/module.js::functionName`, the path relative to the confvars file's folder. */
  readonly postprocess_value: string | null;
}

export interface ConfVars {
  /** The file's folder: postprocess modules resolve against it. */
  readonly dir: string;
  readonly items: Readonly<Record<string, ConfVar>>;
  /** Per item, the folder of the file that last defined it (postprocess modules resolve against it). */
  readonly dirs?: Readonly<Record<string, string>>;
}

export function envNames(item: ConfVar): readonly string[] {
  return item.env === null ? [] : typeof item.env === 'string' ? [item.env] : item.env;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function isHttpRetrieval(value: unknown): value is HttpRetrieval {
  if (!Array.isArray(value) || value[0] !== 'http' || value.length < 3 || value.length > 4) return false;
  const [, options, kind, path] = value as unknown[];
  if (!isRecord(options) || (kind !== 'string' && kind !== 'json')) return false;
  if (path !== undefined && typeof path !== 'string') return false;
  const { method, headers, data, timeout } = options;
  return (
    (method === undefined || typeof method === 'string') &&
    (headers === undefined || (isRecord(headers) && Object.values(headers).every((h) => typeof h === 'string'))) &&
    (data === undefined || data === null || typeof data === 'string') &&
    (timeout === undefined || (typeof timeout === 'number' && timeout > 0 && timeout <= 300))
  );
}

function problemOf(name: string, value: unknown): string | null {
  if (!isRecord(value)) return `item "${name}" is not an object`;
  const env = value['env'];
  if (!(env === null || typeof env === 'string' || (Array.isArray(env) && env.every((e) => typeof e === 'string')))) {
    return `item "${name}": env must be a name, a list of names or null`;
  }
  if (!(value['cmdline'] === null || typeof value['cmdline'] === 'string'))
    return `item "${name}": cmdline must be a name or null`;
  if (!['str', 'int', 'float', 'bool'].includes(value['type'] as string))
    return `item "${name}": type must be str, int, float or bool`;
  if (typeof value['help'] !== 'string') return `item "${name}": help must be text`;
  const rff = value['readable_from_file'];
  if (!(rff === false || rff === 'string' || isHttpRetrieval(rff))) {
    return `item "${name}": readable_from_file must be false, "string" or ["http", {method, headers, data, timeout}, "string"|"json", "key.path"]`;
  }
  const post = value['postprocess_value'];
  if (!(post === null || (typeof post === 'string' && /^.+::[A-Za-z_$][\w$]*$/.test(post)))) {
    return `item "${name}": postprocess_value must be null or "path/to/module.js::functionName"`;
  }
  return null;
}

/**
 * Reads and checks a confvars file; throws with a readable message when it is not one. Given `base`
 * (the package's items), the file's items are laid over it field by field: an item the file lacks
 * keeps the package's definition, a field an item lacks keeps the package's value, a new item must
 * be complete.
 */
export function loadConfVars(path: string, dir: string, base?: ConfVars): ConfVars {
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown;
  if (!isRecord(parsed)) throw new Error(`${path}: not a JSON object of configuration items`);
  const items: Record<string, ConfVar> = { ...base?.items };
  const dirs: Record<string, string> = { ...dirsOf(base) };
  for (const [name, value] of Object.entries(parsed)) {
    const merged = isRecord(value) ? { ...base?.items[name], ...value } : value;
    const problem = problemOf(name, merged);
    if (problem !== null) throw new Error(`${path}: ${problem}`);
    items[name] = merged as ConfVar;
    dirs[name] = dir;
  }
  return { dir, items, dirs };
}

function dirsOf(confvars: ConfVars | undefined): Record<string, string> {
  if (confvars === undefined) return {};
  return Object.fromEntries(Object.keys(confvars.items).map((name) => [name, confvars.dirs?.[name] ?? confvars.dir]));
}

/** How messages name an item: `secret (--secret, AUTHSVC_SECRET, AUTHSVC_SECRETKEY)`. */
export function itemLabel(items: ConfVars['items'], name: string): string {
  const item = items[name];
  const names = [item?.cmdline ? `--${item.cmdline}` : null, ...(item ? envNames(item) : [])].filter(Boolean);
  return `${name} (${names.join(', ')})`;
}
