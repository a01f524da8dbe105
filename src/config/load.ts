/**
 * Turns the command line, the environment and the `--envfile` into a checked Config, or into the
 * list of every problem (start-up then refuses with exit code 2 and that list).
 * Precedence per item: real environment > --envfile > command-line option > default.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { isAbsolute, resolve } from 'node:path';
import { parseKeyring } from '../protocol/index.js';
import type { Keyring } from '../protocol/index.js';
import { loadPolicyBytes, loadPolicyFile } from '../policy/load.js';
import type { LoadedPolicy } from '../policy/load.js';
import { parseDatabaseUrl } from '../store/url.js';
import type { DatabaseTarget } from '../store/url.js';
import { normaliseHost } from '../protocol/host.js';
import { parseCommandLine } from './cli.js';
import type { CommandLine } from './cli.js';
import { loadConfVars } from './confvars.js';
import type { ConfVars } from './confvars.js';
import { parseEnvFile } from './envfile.js';
import type { Environment } from './environment.js';
import { SHIPPED_CONFVARS } from './paths.js';
import { rawValue, retrieve } from './retrieve.js';
import type { Raw, Sources } from './retrieve.js';
import { parsePassHash, parsePassPolicy, parseRateLimits } from './settings.js';
import type { Parsed, RateLimits } from './settings.js';
import type { PassHashSpec } from '../passwords/hashing.js';
import type { PassPolicy } from '../passwords/thresholds.js';

export interface TlsFiles {
  readonly cert: Buffer;
  readonly key: Buffer;
}

export interface EmailSettings {
  readonly server: string;
  readonly port: number;
  readonly user: string;
  readonly pass: string;
  readonly sender: string;
  readonly tlsCa: Buffer | null;
}

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
  readonly tls: TlsFiles | null;
  readonly userLockTimeSeconds: number;
  readonly userLockTries: number;
  readonly passPolicy: PassPolicy;
  readonly passHash: PassHashSpec;
  readonly serverName: string;
  /** null when the compromised-password check is off. */
  readonly pwnedUrl: string | null;
  readonly pwnedFailClosed: boolean;
  /** null when rate limiting is off. */
  readonly rateLimits: RateLimits | null;
  readonly refreshGraceSeconds: number;
  readonly email: EmailSettings;
}

export type ConfigResult =
  { readonly ok: true; readonly config: Config } | { readonly ok: false; readonly problems: string[] };

/** What start-up reads before any item: the command line, the confvars file and the env file. */
export interface Inputs {
  readonly commandLine: CommandLine;
  readonly confvars: ConfVars | null;
  readonly sources: Sources;
  readonly problems: readonly string[];
}

export function readInputs(argv: readonly string[], env: Environment): Inputs {
  const commandLine = parseCommandLine(argv);
  const problems = [...commandLine.problems];
  const confvarsPath = commandLine.confvars === null ? SHIPPED_CONFVARS : resolve(commandLine.confvars);
  let confvars: ConfVars | null = null;
  try {
    confvars = loadConfVars(confvarsPath, resolve(confvarsPath, '..'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    problems.push(
      `--confvars: ${code === undefined ? (error as Error).message : `cannot read ${confvarsPath} (${code})`}`,
    );
  }
  let fileValues: Record<string, string> = {};
  if (commandLine.envfile !== null) {
    const path = resolve(commandLine.envfile);
    try {
      const parsed = parseEnvFile(readFileSync(path, 'utf8'), path);
      fileValues = { ...parsed.values };
      problems.push(...parsed.problems.map((p) => `--envfile: ${p}`));
    } catch (error) {
      problems.push(`--envfile: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  // The real environment wins over the file (the file is for testing and development).
  const merged: Record<string, string | undefined> = { ...fileValues };
  for (const [name, value] of Object.entries(env)) if (value !== undefined && value !== '') merged[name] = value;
  return { commandLine, confvars, sources: { env: merged, options: commandLine.options }, problems };
}

const INT_PATTERN = /^-?\d{1,15}$/;

export interface ResolveOptions {
  /**
   * The policy document to enforce instead of reading the permissions file: a cluster worker gets
   * the one its primary enforces, which may differ from the file after a refused reload.
   */
  readonly policyBytes?: Uint8Array;
}

export async function resolveConfig(inputs: Inputs, options: ResolveOptions = {}): Promise<ConfigResult> {
  const { confvars, sources } = inputs;
  const problems: string[] = [...inputs.problems];
  if (confvars === null) return { ok: false, problems };
  const items = confvars.items;

  const known = new Set(Object.values(items).map((i) => i.cmdline));
  for (const name of sources.options.keys()) if (!known.has(name)) problems.push(`unknown option --${name}`);

  const describe = (name: string): string => {
    const item = items[name];
    const names = [item?.cmdline ? `--${item.cmdline}` : null, ...(item ? [item.env].flat() : [])].filter(Boolean);
    return `${name} (${names.join(', ')})`;
  };

  const basedirItem = items['basedir'];
  const basedir = resolve(String((basedirItem ? rawValue(basedirItem, sources).value : null) ?? '.'));

  // Retrieve every item at once: HTTP fetches run in parallel.
  const values = new Map<string, Raw>();
  await Promise.all(
    Object.entries(items).map(async ([name, item]) => {
      const retrieved = await retrieve(item, rawValue(item, sources), {
        basedir,
        confvarsDir: confvars.dir,
        env: sources.env,
      });
      if ('problem' in retrieved) problems.push(`${describe(name)}: ${retrieved.problem}`);
      else values.set(name, retrieved.value);
    }),
  );

  const present = (name: string): Raw | undefined => {
    if (items[name] === undefined) {
      problems.push(`the configuration-variables file has no item "${name}"`);
      return undefined;
    }
    return values.get(name);
  };
  const text = (name: string, required = false): string | null => {
    const value = present(name);
    if (value === undefined) return null;
    if (value === null) {
      if (required) problems.push(`${describe(name)} is required`);
      return null;
    }
    return String(value);
  };
  const int = (name: string, min: number, max: number): number => {
    const value = present(name);
    const n =
      typeof value === 'number'
        ? value
        : typeof value === 'string' && INT_PATTERN.test(value.trim())
          ? Number(value)
          : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      if (value !== undefined)
        problems.push(`${describe(name)} must be an integer from ${min} to ${max}, not "${String(value)}"`);
      return min;
    }
    return n;
  };
  const structured = <T>(name: string, parse: (text: string) => Parsed<T>): T | null => {
    const value = text(name, true);
    if (value === null) return null;
    const parsed = parse(value);
    if (parsed.ok) return parsed.value;
    problems.push(`${describe(name)}: ${parsed.problem}`);
    return null;
  };
  const readFile = (name: string, path: string | null): Buffer | null => {
    if (path === null) return null;
    const full = isAbsolute(path) ? path : resolve(basedir, path);
    try {
      return readFileSync(full);
    } catch (error) {
      problems.push(`${describe(name)}: cannot read ${full} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
      return null;
    }
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

  const permissionsPath = resolve(basedir, text('permissions', true) ?? '');
  const policy =
    options.policyBytes === undefined
      ? loadPolicyFile(permissionsPath)
      : loadPolicyBytes(permissionsPath, options.policyBytes);
  if (!policy.ok) problems.push(...policy.problems.map((p) => `${describe('permissions')}: ${p}`));

  const certFile = text('tlscertfile');
  const keyFile = text('tlscertkey');
  if ((certFile === null) !== (keyFile === null)) {
    problems.push(`${describe('tlscertfile')} and ${describe('tlscertkey')} must be given together`);
  }
  const cert = readFile('tlscertfile', certFile);
  const key = readFile('tlscertkey', keyFile);

  const pwned = text('pwnedurl', true) ?? 'none';
  let pwnedUrl: string | null = null;
  if (pwned.toLowerCase() !== 'none') {
    if (/^https?:\/\/[^\s]+$/i.test(pwned) && URL.canParse(pwned)) pwnedUrl = pwned;
    else problems.push(`${describe('pwnedurl')} must be an http(s) URL or "none", not "${pwned}"`);
  }
  const serverName = text('servername', true) ?? 'localhost';
  const adminEmail = text('admin_email');
  const adminPassword = text('admin_password');

  const config = {
    basedir,
    listen,
    allowedHosts,
    permissionsPath,
    port: int('port', 0, 65_535),
    debugmode: int('debugmode', 0, 1) === 1,
    sessionExpiryDays: int('sessionexpiry', 1, 3650),
    messageTtlSeconds: int('messagettl', 1, 86_400),
    maxBodySize: int('maxbodysize', 1024, 64 * 1024 * 1024),
    userLockTimeSeconds: int('userlocktime', 1, 10_000_000),
    userLockTries: int('userlocktries', 1, 1000),
    refreshGraceSeconds: int('refreshgrace', 0, 3600),
    workers: int('workers', 1, 64),
    pwnedUrl,
    pwnedFailClosed: int('pwnedfailclosed', 0, 1) === 1,
    serverName,
    admin: {
      ...(adminEmail === null ? {} : { email: adminEmail }),
      ...(adminPassword === null ? {} : { password: adminPassword }),
    },
    email: {
      server: text('emailserver', true) ?? 'localhost',
      port: int('emailport', 1, 65_535),
      user: text('emailuser') ?? '',
      pass: text('emailpass') ?? '',
      sender: text('emailsender', true) ?? '',
      tlsCa: readFile('emailtlsca', text('emailtlsca')),
    },
  };
  const passPolicy = structured('passpolicy', parsePassPolicy);
  const passHash = structured('passhash', parsePassHash);
  const rateLimits = structured('ratelimits', parseRateLimits);

  if (
    problems.length > 0 ||
    keyring === null ||
    piisalt === null ||
    authdb === null ||
    !policy.ok ||
    passPolicy === null ||
    passHash === null
  ) {
    return { ok: false, problems };
  }
  return {
    ok: true,
    config: {
      ...config,
      keyring,
      piisalt,
      authdb,
      policy: policy.policy,
      passPolicy,
      passHash,
      rateLimits,
      tls: cert !== null && key !== null ? { cert, key } : null,
    },
  };
}

/** Both steps at once, for callers that need no --help or --autosetup. */
export async function loadConfig(argv: readonly string[], env: Environment): Promise<ConfigResult> {
  return resolveConfig(readInputs(argv, env));
}
