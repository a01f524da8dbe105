/**
 * Turns the environment and the command line into a checked Config, or into the list of every
 * problem (start-up then refuses with exit code 2 and that list).
 */
import { isIP } from 'node:net';
import { isAbsolute, resolve } from 'node:path';
import { parseKeyring } from '../protocol/index.js';
import type { Keyring } from '../protocol/index.js';
import { loadPolicyFile } from '../policy/load.js';
import type { LoadedPolicy } from '../policy/load.js';
import { parseDatabaseUrl } from '../store/url.js';
import type { DatabaseTarget } from '../store/url.js';
import type { ConfVars } from './confvars.js';
import type { Environment } from './environment.js';
import { parseArgs, rawValue, readableFromFile } from './retrieve.js';
import { normaliseHost } from '../http/host.js';

export interface Config {
  readonly keyring: Keyring;
  readonly piisalt: string;
  readonly authdb: DatabaseTarget;
  readonly basedir: string;
  readonly listen: string;
  readonly port: number;
  readonly allowedHosts: readonly string[];
  readonly debugmode: boolean;
  readonly sessionExpiryDays: number;
  readonly messageTtlSeconds: number;
  readonly maxBodySize: number;
  /** Worker processes (DESIGN decision 21); 1 = a single process. */
  readonly workers: number;
  readonly permissionsPath: string;
  readonly policy: LoadedPolicy;
  readonly admin: { readonly email?: string; readonly password?: string };
}

export type ConfigResult = { ok: true; config: Config } | { ok: false; problems: string[] };

interface IntRange {
  readonly min: number;
  readonly max: number;
}

const INT_RANGES: Readonly<Record<string, IntRange>> = {
  port: { min: 0, max: 65_535 },
  debugmode: { min: 0, max: 1 },
  sessionexpiry: { min: 1, max: 3650 },
  messagettl: { min: 1, max: 86_400 },
  maxbodysize: { min: 1024, max: 64 * 1024 * 1024 },
  workers: { min: 1, max: 64 },
};

export function loadConfig(argv: readonly string[], env: Environment, confvars: ConfVars): ConfigResult {
  const args = parseArgs(argv, confvars);
  const problems: string[] = [...args.problems];
  const describe = (name: string): string => {
    const item = confvars[name];
    const names = [item?.cmdline ? `--${item.cmdline}` : null, ...(item ? [item.env].flat() : [])].filter(Boolean);
    return `${name} (${names.join(', ')})`;
  };

  const raw = (name: string): string | number | boolean | null => {
    const item = confvars[name];
    if (item === undefined) {
      problems.push(`the configuration-variables file has no item "${name}"`);
      return null;
    }
    return rawValue(item, env, args.options).value;
  };

  const basedir = resolve(String(raw('basedir') ?? '.'));

  const text = (name: string, required: boolean): string | null => {
    const value = raw(name);
    if (value === null) {
      if (required) problems.push(`${describe(name)} is required`);
      return null;
    }
    const item = confvars[name];
    if (item?.readable_from_file === 'string' && typeof value === 'string') {
      const read = readableFromFile(value, basedir);
      if ('problem' in read) {
        problems.push(`${describe(name)}: ${read.problem}`);
        return null;
      }
      return read.value;
    }
    return String(value);
  };

  const int = (name: string): number => {
    const value = raw(name);
    const range = INT_RANGES[name] ?? { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER };
    const n = typeof value === 'number' ? value : /^-?\d{1,15}$/.test(String(value).trim()) ? Number(value) : NaN;
    if (!Number.isSafeInteger(n) || n < range.min || n > range.max) {
      problems.push(`${describe(name)} must be an integer from ${range.min} to ${range.max}, not "${String(value)}"`);
      return range.min;
    }
    return n;
  };

  const secret = text('secret', true);
  const keyring = secret === null ? null : parseKeyring(secret);
  if (secret !== null && keyring === null) {
    problems.push(
      `${describe('secret')} is not a Fernet key (32 bytes of URL-safe base64, 44 characters; several separated by ";") nor a file holding one`,
    );
  }

  const piisalt = text('piisalt', true);
  if (piisalt !== null && piisalt.length < 8) problems.push(`${describe('piisalt')} must be at least 8 characters`);

  const authdbUrl = text('authdb', true);
  let authdb: DatabaseTarget | null = null;
  if (authdbUrl !== null) {
    const parsed = parseDatabaseUrl(authdbUrl, basedir);
    if (parsed.ok) authdb = parsed.target;
    else problems.push(`${describe('authdb')} ${parsed.problem}`);
  }

  const listen = text('listen', true) ?? '127.0.0.1';
  if (isIP(listen) === 0 && listen !== 'localhost')
    problems.push(`${describe('listen')} must be an IP address, not "${listen}"`);

  const allowedHosts = (text('allowedhosts', true) ?? '')
    .split(';')
    .map(normaliseHost)
    .filter((h) => h !== '');
  if (allowedHosts.length === 0) problems.push(`${describe('allowedhosts')} must name at least one host`);

  const permissionsPath = text('permissions', true) ?? '';
  const resolvedPermissions = isAbsolute(permissionsPath) ? permissionsPath : resolve(basedir, permissionsPath);
  const policy = loadPolicyFile(resolvedPermissions);
  if (!policy.ok) problems.push(...policy.problems.map((p) => `${describe('permissions')}: ${p}`));

  const port = int('port');
  const debugmode = int('debugmode') === 1;
  const sessionExpiryDays = int('sessionexpiry');
  const messageTtlSeconds = int('messagettl');
  const maxBodySize = int('maxbodysize');
  const workers = int('workers');
  const adminEmail = text('admin_email', false);
  const adminPassword = text('admin_password', false);

  if (problems.length > 0 || keyring === null || piisalt === null || authdb === null || !policy.ok) {
    return { ok: false, problems };
  }
  return {
    ok: true,
    config: {
      keyring,
      piisalt,
      authdb,
      basedir,
      listen,
      port,
      allowedHosts,
      debugmode,
      sessionExpiryDays,
      messageTtlSeconds,
      maxBodySize,
      workers,
      permissionsPath: resolvedPermissions,
      policy: policy.policy,
      admin: {
        ...(adminEmail === null ? {} : { email: adminEmail }),
        ...(adminPassword === null ? {} : { password: adminPassword }),
      },
    },
  };
}
