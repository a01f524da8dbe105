/**
 * `readable_from_file: ["http", {method, headers, data, timeout}, "string"|"json", "key.path"]`: the
 * item's value is a URL and the real value is fetched from it (e.g. a secret from a vault).
 * `[[VARNAME]]` in headers and data is replaced by that environment variable.
 */
import type { HttpRetrieval } from './confvars.js';
import type { Environment } from './environment.js';

type Fetched = { readonly value: string | number | boolean | null } | { readonly problem: string };

function substitute(text: string, env: Environment, missing: Set<string>): string {
  return text.replace(/\[\[([A-Za-z_][A-Za-z0-9_]*)\]\]/g, (_, name: string) => {
    const value = env[name];
    if (value === undefined) missing.add(name);
    return value ?? '';
  });
}

/** Follows `a.b._arr_0.c` or `a.b[0].c` into parsed JSON. */
export function pickPath(value: unknown, path: string): { found: true; value: unknown } | { found: false } {
  const steps = path
    .replace(/\[(\d+)\]/g, '._arr_$1')
    .split('.')
    .filter((s) => s !== '');
  let here: unknown = value;
  for (const step of steps) {
    const index = /^_arr_(\d+)$/.exec(step);
    if (index !== null) {
      if (!Array.isArray(here)) return { found: false };
      here = here[Number(index[1])];
    } else {
      if (here === null || typeof here !== 'object' || Array.isArray(here) || !Object.hasOwn(here, step))
        return { found: false };
      here = (here as Record<string, unknown>)[step];
    }
    if (here === undefined) return { found: false };
  }
  return { found: true, value: here };
}

export async function fetchValue(url: string, spec: HttpRetrieval, env: Environment): Promise<Fetched> {
  const [, options, kind, path] = spec;
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { problem: `"${url}" is not a URL to fetch the value from` };
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    return { problem: `${target.protocol} URLs cannot be fetched` };
  const missing = new Set<string>();
  const headers = Object.fromEntries(
    Object.entries(options.headers ?? {}).map(([k, v]) => [k, substitute(v, env, missing)]),
  );
  const body = options.data === undefined || options.data === null ? undefined : substitute(options.data, env, missing);
  if (missing.size > 0)
    return { problem: `fetching ${target.origin}: the environment lacks ${[...missing].join(', ')}` };
  const timeoutSeconds = options.timeout ?? 5;
  let text: string;
  try {
    const response = await fetch(target, {
      method: options.method ?? 'GET',
      headers,
      ...(body === undefined ? {} : { body }),
      signal: AbortSignal.timeout(timeoutSeconds * 1000),
      redirect: 'error',
    });
    text = await response.text();
    if (!response.ok)
      return { problem: `fetching ${target.origin}${target.pathname} answered HTTP ${response.status}` };
  } catch (error) {
    const reason =
      (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutSeconds} s` : (error as Error).message;
    return { problem: `fetching ${target.origin}${target.pathname} failed: ${reason}` };
  }
  if (kind === 'string') return { value: text.trim() };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { problem: `fetching ${target.origin}${target.pathname}: the answer is not JSON` };
  }
  const picked = path === undefined ? { found: true as const, value: parsed } : pickPath(parsed, path);
  if (!picked.found)
    return { problem: `fetching ${target.origin}${target.pathname}: the answer has no "${path ?? ''}"` };
  const value = picked.value;
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return { value };
  return { problem: `fetching ${target.origin}${target.pathname}: "${path ?? ''}" is not a single value` };
}
