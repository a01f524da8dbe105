/**
 * Turns the command line, the environment and the `--envfile` into a checked Config, or into the
 * list of every problem (start-up then refuses with exit code 2 and that list). Each item is decoded
 * by its entry in items.ts; this file assembles the results.
 * Precedence per item: real environment > --envfile > command-line option > default.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import type { NotifyKind } from '../domain/notify-kinds.js';
import type { RatePolicy } from '../services/admission/index.js';
import type { WebhookTarget } from '../log/webhooks.js';
import type { LogLevel } from '../log/levels.js';
import type { MailTimeouts } from '../services/mail/mailer.js';
import type { AddressRange } from '../services/metrics/peers.js';
import type { Keyring } from '../protocol/index.js';
import type { PassHashSpec } from '../accounts/password-hashing.js';
import type { PassPolicy } from '../accounts/password-policy.js';
import type { DatabaseTarget } from '../services/store/url.js';
import { itemLabel } from './confvars.js';
import type { ConfVars } from './confvars.js';
import type { Environment } from './environment.js';
import { readInputs } from './inputs.js';
import type { Inputs } from './inputs.js';
import { crossItemProblems, decodeItems, passkeySettings } from './items.js';
import type { ItemName, ItemValues, PasskeySettings } from './items.js';
import { rawValue, retrieveAll } from './retrieve.js';
import type { Sources } from './retrieve.js';

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
  /** No configuration item sets these: the mail module's defaults hold, and tests shorten them. */
  readonly timeouts?: Partial<MailTimeouts>;
}

export interface Config {
  readonly keyring: Keyring;
  readonly piisalt: string;
  readonly authdb: DatabaseTarget;
  /** The database URL as given, its password replaced by `***`: how messages name the database. */
  readonly authdbRedacted: string;
  readonly basedir: string;
  readonly listen: string;
  readonly port: number;
  readonly allowedHosts: readonly string[];
  readonly debugmode: boolean;
  /** null: pretty on a terminal, else json (log/logger.ts). */
  readonly logFormat: 'json' | 'pretty' | null;
  /** The least severe lines written (error < warn < info < debug); debug also prints start-up failures' stacks. */
  readonly logLevel: LogLevel;
  readonly sessionExpiryDays: number;
  readonly messageTtlSeconds: number;
  readonly maxBodySize: number;
  /** Worker processes (docs/design.md#worker-processes); 1 = a single process. */
  readonly workers: number;
  /** Set when no source names the number: the default, capped at the CPUs (what start-up says). */
  readonly workersDefault: { readonly cpus: number; readonly default: number } | null;
  /** The purge of expired rows (docs/design.md#sessions-and-the-purge): minutes between two (0: never here), rows a statement. */
  readonly purge: { readonly intervalMinutes: number; readonly batch: number };
  /** The permissions policy's file: the composition root loads, compiles and reports it (src/app.ts). */
  readonly permissionsPath: string;
  readonly admin: { readonly email?: string; readonly password?: string };
  readonly tls: TlsFiles | null;
  readonly userLockTimeSeconds: number;
  /** Seconds a session's second-factor proof lasts for the actions that need one (docs/design.md#step-up). */
  readonly stepUpWindowSeconds: number;
  /** Days a user's security events are kept; 0: none recorded (docs/design.md#security-history). */
  readonly eventRetentionDays: number;
  /** The security mails to send (docs/design.md#security-mail); empty: none. */
  readonly notify: readonly NotifyKind[];
  /** Roles whose users must enrol a second factor before a login completes (docs/design.md#second-factors). */
  readonly mfaRequiredRoles: readonly string[];
  /** Null: passkeys are off (no `passkeyorigins`). */
  readonly passkeys: PasskeySettings | null;
  readonly userLockTries: number;
  readonly passPolicy: PassPolicy;
  readonly passHash: PassHashSpec;
  readonly serverName: string;
  /** null when the compromised-password check is off. */
  readonly pwnedUrl: string | null;
  readonly pwnedFailClosed: boolean;
  /** null when rate limiting is off (replay refusal stays on). */
  readonly rateLimits: RatePolicy | null;
  /** The shared admission store of several instances; null: this instance's own (memory or its cluster primary). */
  readonly redisUrl: string | null;
  /** The growing wait before answering a failed password check (docs/design.md#lock-out-and-login-back-off). */
  readonly loginBackoff: boolean;
  /**
   * A file holding the server's time in epoch milliseconds, read by every process, so tests across
   * processes can freeze and move time (docs/design.md#a-test-clock). Honoured only with debugmode 1: null otherwise.
   */
  readonly testClockFile: string | null;
  readonly refreshGraceSeconds: number;
  readonly email: EmailSettings;
  /** GET /metrics (Prometheus) for the peers in `allow`; null: metrics off, nothing registered or counted. */
  readonly metrics: { readonly allow: readonly AddressRange[] } | null;
  /** Where the audit events are POSTed, signed; null: no webhooks. */
  readonly webhook: WebhookTarget | null;
}

/** Where the policy is and how messages name its item, e.g. `permissions (--permissions, AUTHSVC_PERMISSIONS)`. */
export interface PolicyLocation {
  readonly path: string;
  readonly label: string;
}

/**
 * Refused or not, the result says where the policy is whenever that item decoded: the composition
 * root checks the policy too, so start-up lists every problem of both at once.
 */
export type ConfigResult =
  | { readonly ok: true; readonly config: Config; readonly permissions: PolicyLocation }
  | { readonly ok: false; readonly problems: string[]; readonly permissions: PolicyLocation | null };

function unknownOptions(confvars: ConfVars, sources: Sources): string[] {
  const known = new Set(Object.values(confvars.items).map((i) => i.cmdline));
  return [...sources.options.keys()].filter((name) => !known.has(name)).map((name) => `unknown option --${name}`);
}

/** Read before the other items: their relative paths resolve against it. */
function baseDirectory(confvars: ConfVars, sources: Sources): string {
  const item = confvars.items['basedir'];
  return resolve(String((item ? rawValue(item, sources).value : null) ?? '.'));
}

/**
 * The spec's default of 4 workers made `session-exists` 40 % slower than 1 on a 2-core machine, so when nothing
 * names the number, it is the default capped at the CPUs: one rule for `npm start`, `authsvc` and the systemd unit.
 */
function defaultWorkers(confvars: ConfVars, sources: Sources, workers: number): Config['workersDefault'] {
  const item = confvars.items['workers'];
  if (item === undefined || rawValue(item, sources).source !== 'default') return null;
  return { cpus: availableParallelism(), default: workers };
}

function assemble(
  v: ItemValues,
  basedir: string,
  passkeys: PasskeySettings | null,
  workersDefault: Config['workersDefault'],
): Config {
  return {
    keyring: v.secret,
    piisalt: v.piisalt,
    authdb: v.authdb.target,
    authdbRedacted: v.authdb.redacted,
    basedir,
    listen: v.listen,
    port: v.port,
    allowedHosts: v.allowedhosts,
    debugmode: v.debugmode,
    logFormat: v.logformat,
    logLevel: v.loglevel,
    sessionExpiryDays: v.sessionexpiry,
    messageTtlSeconds: v.messagettl,
    maxBodySize: v.maxbodysize,
    workers: workersDefault === null ? v.workers : Math.min(workersDefault.default, workersDefault.cpus),
    workersDefault,
    purge: { intervalMinutes: v.purgeinterval, batch: v.purgebatch },
    permissionsPath: v.permissions,
    admin: {
      ...(v.admin_email === null ? {} : { email: v.admin_email }),
      ...(v.admin_password === null ? {} : { password: v.admin_password }),
    },
    tls: v.tlscertfile !== null && v.tlscertkey !== null ? { cert: v.tlscertfile, key: v.tlscertkey } : null,
    userLockTimeSeconds: v.userlocktime,
    stepUpWindowSeconds: v.stepupwindow,
    eventRetentionDays: v.eventretention,
    notify: v.notify ?? [],
    mfaRequiredRoles: v.mfarequired ?? [],
    passkeys,
    userLockTries: v.userlocktries,
    passPolicy: v.passpolicy,
    passHash: v.passhash,
    serverName: v.servername,
    pwnedUrl: v.pwnedurl,
    pwnedFailClosed: v.pwnedfailclosed,
    rateLimits: v.ratelimits,
    redisUrl: v.redisurl,
    loginBackoff: v.loginbackoff,
    testClockFile: v.debugmode ? v.testclock : null,
    refreshGraceSeconds: v.refreshgrace,
    metrics: v.metrics ? { allow: v.metricsallow } : null,
    webhook: v.webhookurl !== null && v.webhooksecret !== null ? { url: v.webhookurl, key: v.webhooksecret } : null,
    email: {
      server: v.emailserver,
      port: v.emailport,
      user: v.emailuser ?? '',
      pass: v.emailpass ?? '',
      sender: v.emailsender,
      tlsCa: v.emailtlsca,
    },
  };
}

export async function resolveConfig(inputs: Inputs): Promise<ConfigResult> {
  const { confvars, sources } = inputs;
  if (confvars === null) return { ok: false, problems: [...inputs.problems], permissions: null };
  const label = (name: string): string => itemLabel(confvars.items, name);
  const basedir = baseDirectory(confvars, sources);
  const problems = [...inputs.problems, ...unknownOptions(confvars, sources)];

  const retrieved = await retrieveAll(confvars.items, sources, {
    basedir,
    confvarsDir: confvars.dir,
    ...(confvars.dirs === undefined ? {} : { itemDirs: confvars.dirs }),
    env: sources.env,
  });
  for (const [name, outcome] of retrieved)
    if ('problem' in outcome) problems.push(`${label(name)}: ${outcome.problem}`);
  const given = (name: ItemName): boolean => {
    const found = retrieved.get(name);
    return found !== undefined && 'value' in found && found.value !== null;
  };
  const decoded = decodeItems(retrieved, (name) => ({ label: label(name), basedir }));
  problems.push(...decoded.problems, ...crossItemProblems(given, label));

  const path = decoded.values.permissions;
  const permissions = path === undefined ? null : { path, label: label('permissions') };
  if (problems.length > 0 || permissions === null) return { ok: false, problems, permissions };
  const values = decoded.values as ItemValues;
  const passkeys = passkeySettings(values, label);
  if (!passkeys.ok) return { ok: false, problems: [passkeys.problem], permissions };
  const workersDefault = defaultWorkers(confvars, sources, values.workers);
  return { ok: true, config: assemble(values, basedir, passkeys.value, workersDefault), permissions };
}

/** Both steps at once, for callers that need no --help or --autosetup. */
export async function loadConfig(argv: readonly string[], env: Environment): Promise<ConfigResult> {
  return resolveConfig(readInputs(argv, env));
}
