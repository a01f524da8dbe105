/**
 * `--autosetup` (spec rule 1): asks for the database URL, the permissions file and the admin account,
 * creates the database and the superuser, writes the secret and the PII salt (mode 0400, never
 * overwritten), copies the default policy and the configuration-variables file into basedir, writes
 * `.env`, and says how to start. `npm start` runs the same setup with every answer blank.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { SHIPPED_CONFVARS, PKG_DIR } from '../package-dir.js';
import { createHasher } from '../accounts/password-hashing.js';
import type { PasswordHasher } from '../accounts/password-hashing.js';
import { systemClock, randomSource } from '../domain/ports.js';
import type { Clock, Random } from '../domain/ports.js';
import { COPY_SCHEMA_FILE, policyCopy } from '../services/policy/copy.js';
import { loadPolicyFile } from '../services/policy/load.js';
import { generateFernetKey } from '../protocol/index.js';
import { openStore } from '../services/store/index.js';
import { seedFixedAccounts } from '../services/store/seed.js';
import { parseDatabaseUrl } from '../services/store/url.js';
import type { DatabaseTarget } from '../services/store/url.js';
import { writeCredentials } from './credentials.js';

export const SECRET_FILE = '.authsvc-secret-key';
export const SALT_FILE = '.authsvc-salt';
export const ENV_FILE = '.env';

/** Blank answers take the defaults. */
export interface SetupAnswers {
  readonly authdb: string;
  readonly permissions: string;
  readonly adminEmail: string;
  readonly adminPassword: string;
}

export const BLANK_ANSWERS: SetupAnswers = { authdb: '', permissions: '', adminEmail: '', adminPassword: '' };

export interface SetupOptions {
  readonly force: boolean;
  readonly hasher?: PasswordHasher;
  readonly clock?: Clock;
  readonly random?: Random;
}

export interface SetupDone {
  readonly basedir: string;
  readonly envFile: string;
  readonly secretFile: string;
  readonly credentialsFile: string | null;
  readonly startCommand: string;
}

export type SetupResult =
  { readonly ok: true; readonly done: SetupDone } | { readonly ok: false; readonly problems: string[] };

/** Writes a file only when it does not exist yet: a rerun never replaces a secret or an edited copy. */
function writeOnce(path: string, content: string | Buffer, mode: number): void {
  if (!existsSync(path)) writeFileSync(path, content, { mode, flag: 'wx' });
}

/** Why setup must not run in basedir (it is set up and --force was not given), or null. */
export function alreadySetUp(basedirArg: string, force: boolean): string | null {
  const basedir = resolve(basedirArg);
  const envFile = join(basedir, ENV_FILE);
  if (force || !existsSync(envFile)) return null;
  return `${basedir} is already set up (${envFile} exists); add --force to set it up again`;
}

/**
 * What a failed setup must take back: the files (and the folder) this run created, never one that
 * was there before, so a rerun starts clean instead of over a half-written setup.
 */
function undoer(basedir: string): { readonly undo: () => void } {
  const folderExisted = existsSync(basedir);
  const before = new Set(folderExisted ? readdirSync(basedir) : []);
  return {
    undo: () => {
      if (!existsSync(basedir)) return;
      for (const name of readdirSync(basedir)) if (!before.has(name)) rmSync(join(basedir, name), { force: true });
      if (!folderExisted && readdirSync(basedir).length === 0) rmdirSync(basedir);
    },
  };
}

interface CheckedAnswers {
  readonly authdbUrl: string;
  readonly target: DatabaseTarget;
  readonly permissions: string;
}

/** The answers' database URL and policy file, or every problem with them. */
function checkAnswers(basedir: string, answers: SetupAnswers): CheckedAnswers | { readonly problems: string[] } {
  const problems: string[] = [];
  const authdbUrl = answers.authdb.trim() || `sqlite:///${join(basedir, 'authsvc.sqlite')}`;
  const target = parseDatabaseUrl(authdbUrl, basedir);
  if (!target.ok) problems.push(`database URL ${target.problem}`);
  const given = answers.permissions.trim();
  const permissions = given === '' ? join(basedir, 'permissions.json') : resolve(given);
  if (given !== '') {
    const policy = loadPolicyFile(permissions);
    if (!policy.ok) problems.push(...policy.problems.map((p) => `permissions: ${p}`));
  }
  if (!target.ok || problems.length > 0) return { problems };
  return { authdbUrl, target: target.target, permissions };
}

/** The secret, the salt and the copies of the default policy and of the confvars file. */
function writeSecretsAndCopies(
  basedir: string,
  random: Random,
): { secretFile: string; saltFile: string; confvarsCopy: string } {
  mkdirSync(basedir, { recursive: true, mode: 0o700 });
  const secretFile = join(basedir, SECRET_FILE);
  const saltFile = join(basedir, SALT_FILE);
  const confvarsCopy = join(basedir, 'confvars.json');
  writeOnce(secretFile, generateFernetKey(), 0o400);
  writeOnce(saltFile, random.bytes(32).toString('base64url'), 0o400);
  const copy = policyCopy(join(PKG_DIR, 'policy', 'default.json'));
  writeOnce(join(basedir, 'permissions.json'), copy.policy, 0o644);
  writeOnce(join(basedir, COPY_SCHEMA_FILE), copy.schema, 0o644);
  writeOnce(confvarsCopy, readFileSync(SHIPPED_CONFVARS), 0o644);
  return { secretFile, saltFile, confvarsCopy };
}

/** Creates the tables and the fixed accounts; returns the credentials file when it wrote one. */
async function seedDatabase(
  basedir: string,
  target: DatabaseTarget,
  answers: SetupAnswers,
  deps: { clock: Clock; random: Random; hasher: PasswordHasher },
): Promise<string | null> {
  const store = openStore(target);
  try {
    await store.migrate();
    const seeded = await seedFixedAccounts(store.users, deps, {
      ...(answers.adminEmail.trim() === '' ? {} : { email: answers.adminEmail.trim() }),
      ...(answers.adminPassword === '' ? {} : { password: answers.adminPassword }),
    });
    return seeded.created === null ? null : writeCredentials(basedir, seeded.created, deps.clock.now());
  } finally {
    await store.close();
  }
}

export async function runSetup(basedirArg: string, answers: SetupAnswers, options: SetupOptions): Promise<SetupResult> {
  const basedir = resolve(basedirArg);
  const refusal = alreadySetUp(basedir, options.force);
  if (refusal !== null) return { ok: false, problems: [refusal] };
  const checked = checkAnswers(basedir, answers);
  if ('problems' in checked) return { ok: false, problems: checked.problems };
  const { undo } = undoer(basedir);
  try {
    return { ok: true, done: await setUp(basedir, checked, answers, options) };
  } catch (error) {
    undo();
    // An expected failure (the database is down, a folder is not writable): its message, not a stack.
    return { ok: false, problems: [`setup failed, nothing was written: ${(error as Error).message}`] };
  }
}

async function setUp(
  basedir: string,
  checked: CheckedAnswers,
  answers: SetupAnswers,
  options: SetupOptions,
): Promise<SetupDone> {
  const random = options.random ?? randomSource;
  const { secretFile, saltFile, confvarsCopy } = writeSecretsAndCopies(basedir, random);
  const clock = options.clock ?? systemClock;
  const hasher = options.hasher ?? createHasher();
  const credentialsFile = await seedDatabase(basedir, checked.target, answers, { clock, random, hasher });

  const envFile = join(basedir, ENV_FILE);
  const startCommand = `npx authsvc --basedir=${basedir} --confvars=${confvarsCopy} --envfile=${envFile}`;
  writeFileSync(
    envFile,
    [
      `# Written by authsvc --autosetup. Start with:`,
      `#   ${startCommand}`,
      `AUTHSVC_BASEDIR=${basedir}`,
      `AUTHSVC_AUTHDB=${checked.authdbUrl}`,
      `AUTHSVC_PERMISSIONS=${checked.permissions}`,
      `AUTHSVC_SECRET=${secretFile}`,
      `AUTHSVC_PIISALT=${saltFile}`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  return { basedir, envFile, secretFile, credentialsFile, startCommand };
}

const QUESTIONS: ReadonlyArray<readonly [keyof SetupAnswers, string]> = [
  ['authdb', 'Database URL (blank: an SQLite database in the base directory): '],
  ['permissions', 'Permissions policy JSON file (blank: the shipped default): '],
  ['adminEmail', 'Admin email (blank: <your user>@localhost): '],
  ['adminPassword', 'Admin password (blank: generate one): '],
];

/**
 * Asks the questions on `input` (a terminal or piped answers, one per line). Piped answers are not
 * echoed, so each question then ends its own line instead of running into the next.
 */
export async function askAnswers(input: Readable, output: Writable): Promise<SetupAnswers> {
  const piped = (input as Readable & { isTTY?: boolean }).isTTY !== true;
  const lines = createInterface({ input, terminal: false })[Symbol.asyncIterator]();
  const answers: Record<string, string> = {};
  for (const [key, question] of QUESTIONS) {
    output.write(question);
    const next = await lines.next();
    answers[key] = next.done === true ? '' : next.value;
    if (piped || next.done === true) output.write('\n');
  }
  return answers as unknown as SetupAnswers;
}

export function describeSetup(done: SetupDone): string {
  return [
    `authsvc is set up in ${done.basedir}`,
    `  secret key: ${done.secretFile} (give it to the frontend)`,
    done.credentialsFile === null
      ? '  admin account: the email and password you gave'
      : `  admin credentials: ${done.credentialsFile} (one line: the email, a space, the password)`,
    `Start it with:`,
    `  ${done.startCommand}`,
    '',
  ].join('\n');
}
