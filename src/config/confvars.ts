/**
 * The configuration-variables file: for every item, where it is read from and how (spec: Retrieval
 * of configuration items). It defines items; it never holds a secret.
 */
import { readFileSync } from 'node:fs';

export type ItemType = 'str' | 'int' | 'float' | 'bool';

export interface ConfVar {
  readonly env: string | readonly string[] | null;
  readonly cmdline: string | null;
  readonly type: ItemType;
  readonly default: string | number | boolean | null;
  readonly help: string;
  readonly readable_from_file: false | 'string';
  readonly postprocess_value: string | null;
}

export type ConfVars = Readonly<Record<string, ConfVar>>;

export function envNames(item: ConfVar): readonly string[] {
  return item.env === null ? [] : typeof item.env === 'string' ? [item.env] : item.env;
}

function isConfVar(value: unknown): value is ConfVar {
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  const env = v['env'];
  return (
    (env === null || typeof env === 'string' || (Array.isArray(env) && env.every((e) => typeof e === 'string'))) &&
    (v['cmdline'] === null || typeof v['cmdline'] === 'string') &&
    ['str', 'int', 'float', 'bool'].includes(v['type'] as string) &&
    typeof v['help'] === 'string' &&
    (v['readable_from_file'] === false || v['readable_from_file'] === 'string') &&
    (v['postprocess_value'] === null || typeof v['postprocess_value'] === 'string')
  );
}

/** Reads and checks a confvars file; throws with a readable message when it is not one. */
export function loadConfVars(path: string): ConfVars {
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`${path}: not a JSON object of configuration items`);
  }
  const items: Record<string, ConfVar> = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (!isConfVar(value))
      throw new Error(`${path}: item "${name}" lacks env, cmdline, type, help or readable_from_file`);
    items[name] = value;
  }
  return items;
}
