/**
 * The admin command line: `authsvc user …`, `authsvc session purge`, `authsvc policy check`.
 *
 * Every change runs the action handler the server runs (the dispatcher of the composition root, with
 * its validation), never a copy of its rules, so the same refusals apply and each change records its
 * audit event. Actions that need a superuser initiator (user-lock, user-edit, user-delete,
 * session-delete-userid) get one the way a frontend would: a session of superuser 1 opened through
 * session-new for the few seconds of the command and deleted through session-delete at the end; the
 * operator logs in nowhere. Output: human tables, or JSON (`--json`) for scripts; the audit log goes
 * to stderr. Exit codes: 0 done, 1 refused, 2 usage or configuration.
 */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { openActionRunner } from '../app.js';
import { loadStartup } from '../setup/startup.js';
import type { ActionRunner } from '../app.js';
import type { Environment } from '../config/environment.js';
import { readInputs } from '../config/inputs.js';
import { resolveConfig } from '../config/load.js';
import { overriddenOptions } from '../config/precedence.js';
import { failures } from '../domain/errors.js';
import { SUPERUSER_ID } from '../domain/fixed-accounts.js';
import { formatDateTime } from '../protocol/index.js';
import type { ActionName, ActionOutput, UserInfoDict } from '../protocol/index.js';
import { checkPolicy } from './policy-check.js';
import { parseAdminArgs } from './args.js';
import type { AdminArgs } from './args.js';
import { groupHelp } from './help.js';
import { readPassword } from './password.js';
import { START_ENV_FILE, missingConfigurationHint, startFolderArgv, usesStartFolder } from '../setup/start-folder.js';
import { record, table } from './table.js';

export interface Terminal {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
}

/** A refusal (exit 1) or a usage/configuration error (exit 2), with what to print. */
class Stop extends Error {
  constructor(
    readonly exitCode: 1 | 2,
    message: string,
  ) {
    super(message);
  }
}

const usage = (message: string, group: AdminArgs['group']): Stop =>
  new Stop(2, `${message}\nSee: authsvc ${group} --help`);

type Reply<K extends ActionName> =
  | { readonly ok: true; readonly value: ActionOutput<K> }
  | { readonly ok: false; readonly reason: string; readonly messages: readonly string[] };

/** One command's run: the actions, the terminal, and the operator's session once one is needed. */
class Operator {
  private sequence = 0;
  private token: string | null = null;

  constructor(
    readonly runner: ActionRunner,
    private readonly terminal: Terminal,
  ) {}

  /** Runs an action through the server's dispatcher (validation, handler, messages). */
  async act<K extends ActionName>(name: K, body: Readonly<Record<string, unknown>>): Promise<Reply<K>> {
    this.sequence += 1;
    const meta = { reqid: `authsvc-admin-${process.pid}-${this.sequence}`, clientIp: '127.0.0.1' };
    const reply = await this.runner.dispatcher.run(name, body, meta);
    const { payload } = reply;
    if (payload.success) return { ok: true, value: payload.response };
    return { ok: false, reason: payload.failure_reason, messages: payload.messages };
  }

  /** The action's answer, or a refusal (exit 1) naming the action, its failure_reason and its messages. */
  async must<K extends ActionName>(name: K, body: Readonly<Record<string, unknown>>): Promise<ActionOutput<K>> {
    const reply = await this.act(name, body);
    if (reply.ok) return reply.value;
    throw refusal(name, reply);
  }

  /**
   * The initiator items of superuser 1. The session lives a few minutes at most (an interrupted
   * command leaves nothing usable for long) and is deleted by close().
   */
  async initiator(): Promise<{ user_id: number; user_role: string; session_token: string }> {
    if (this.token === null) {
      const opened = await this.must('session-new', {
        ip_address: '127.0.0.1',
        user_agent: 'authsvc admin command line',
        user_id: SUPERUSER_ID,
        expires: formatDateTime(this.runner.clock.now() + 5 * 60_000),
        extra_info_json: { admin_command_line: true },
      });
      if (opened.session_token === null) throw new Stop(1, 'session-new answered no session token');
      this.token = opened.session_token;
    }
    return { user_id: SUPERUSER_ID, user_role: 'superuser', session_token: this.token };
  }

  async close(): Promise<void> {
    // session-delete-userid on user 1 may have ended it already: then there is nothing to delete.
    if (this.token !== null) await this.act('session-delete', { session_token: this.token });
    this.token = null;
  }

  out(text: string): void {
    this.terminal.stdout.write(text);
  }
}

function refusal(name: string, reply: { reason: string; messages: readonly string[] }): Stop {
  const messages = reply.messages.length === 0 ? '' : ` (${reply.messages.join(' ')})`;
  return new Stop(1, `${name} refused: ${reply.reason}${messages}`);
}

/** A user named by id (digits) or by email, as the actions user-list and user-lookup-email find them. */
async function findUser(op: Operator, which: string): Promise<UserInfoDict> {
  if (/^\d+$/.test(which)) {
    const reply = await op.act('user-list', { user_id: Number(which) });
    const found = reply.ok ? reply.value.user_info?.[0] : undefined;
    if (found === undefined) throw new Stop(1, `no user with id ${which}`);
    return found;
  }
  const reply = await op.act('user-lookup-email', { email: which });
  if (!reply.ok || reply.value.user_info === null) throw new Stop(1, `no user with email ${which}`);
  return reply.value.user_info;
}

const LIST_COLUMNS = [
  'user_id',
  'email',
  'full_name',
  'user_role',
  'is_active',
  'email_verified',
  'last_login_success',
];

function printUser(op: Operator, args: AdminArgs, user: UserInfoDict, extra: Record<string, unknown> = {}): void {
  op.out(args.json ? `${JSON.stringify({ ...user, ...extra })}\n` : record({ ...user, ...extra }));
}

function target(args: AdminArgs, what = 'ID|EMAIL'): string {
  const which = args.positionals[0];
  if (which === undefined) throw usage(`authsvc user ${args.verb ?? ''} needs ${what}`, 'user');
  return which;
}

function noMoreThan(args: AdminArgs, count: number): void {
  const extra = args.positionals.slice(count);
  if (extra.length > 0) throw usage(`unexpected argument "${extra[0] ?? ''}"`, args.group);
}

async function userList(op: Operator, args: AdminArgs): Promise<void> {
  noMoreThan(args, 0);
  const users: UserInfoDict[] = [];
  let after: number | undefined;
  for (;;) {
    const page = await op.must('user-list', {
      user_id: null,
      ...(after === undefined ? {} : { after_user_id: after }),
    });
    const infos = page.user_info ?? [];
    users.push(...infos);
    const last = infos.at(-1);
    if (!page.has_more || last === undefined) break;
    after = last.user_id;
  }
  op.out(args.json ? `${JSON.stringify(users)}\n` : table(LIST_COLUMNS, users));
}

async function userAdd(op: Operator, args: AdminArgs, terminal: Terminal): Promise<void> {
  const email = target(args, 'EMAIL');
  noMoreThan(args, 1);
  if (args.name === null) throw usage('authsvc user add needs --name=NAME (the full name)', 'user');
  const read = await readPassword(terminal.stdin, terminal.stderr, `Password for ${email}`);
  if (!read.ok) throw new Stop(2, `user add: ${read.problem}`);
  const reply = await op.act('user-new', { full_name: args.name, email, password: read.password });
  if (!reply.ok && reply.reason === failures.user_exists.reason) {
    // user-new's messages are for end users, and say nothing of the taken address on purpose: the operator may know.
    const taken = await findUser(op, email).catch(() => null);
    throw new Stop(
      1,
      `${email} is already taken${taken === null ? '' : ` (user ${taken.user_id})`}: nothing was added`,
    );
  }
  if (!reply.ok) throw refusal('user-new', reply);
  const created = reply.value;
  // A user the operator adds is one they vouch for: verified and active, as after the sign-up mail.
  await op.must('user-set-emailverified', { email });
  if (args.role !== null && args.role !== 'authenticated') await setRole(op, created.user_id ?? 0, args.role);
  printUser(op, args, await findUser(op, String(created.user_id)));
}

async function setRole(op: Operator, userId: number, role: string): Promise<UserInfoDict | null> {
  const edited = await op.must('user-edit', {
    ...(await op.initiator()),
    target_userid: userId,
    update_dict: { user_role: role },
  });
  return edited.user_info;
}

async function userLock(op: Operator, args: AdminArgs, action: 'lock' | 'unlock'): Promise<void> {
  const user = await findUser(op, target(args));
  noMoreThan(args, 1);
  const done = await op.must('user-lock', { ...(await op.initiator()), target_userid: user.user_id, action });
  printUser(op, args, done.user_info ?? user, { locked: done.locked });
}

async function userDelete(op: Operator, args: AdminArgs, terminal: Terminal): Promise<void> {
  const user = await findUser(op, target(args));
  noMoreThan(args, 1);
  if (!args.yes && !(await confirm(terminal, `Delete user ${user.user_id} (${user.email})? Type "yes": `))) {
    throw new Stop(1, 'not deleted: not confirmed (answer "yes", or pass --yes)');
  }
  const deleted = await op.must('user-delete', {
    user_id: user.user_id,
    email: user.email,
    session_token: (await op.initiator()).session_token,
  });
  op.out(args.json ? `${JSON.stringify(deleted)}\n` : `deleted user ${user.user_id} (${user.email})\n`);
}

async function userResetPassword(op: Operator, args: AdminArgs, terminal: Terminal): Promise<void> {
  const user = await findUser(op, target(args));
  noMoreThan(args, 1);
  const read = await readPassword(terminal.stdin, terminal.stderr, `New password for ${user.email}`);
  if (!read.ok) throw new Stop(2, `user reset-password: ${read.problem}`);
  // The no-session reset, guarded by the activity just read: an account locked meanwhile is refused.
  await op.must('user-resetpass-nosession', {
    email_address: user.email,
    new_password: read.password,
    required_active: user.is_active,
  });
  op.out(
    args.json
      ? `${JSON.stringify({ user_id: user.user_id, email: user.email })}\n`
      : `password of user ${user.user_id} (${user.email}) replaced; their sessions ended\n`,
  );
}

/** `user factors reset ID|EMAIL`: a user who lost their device gets in again with the password alone. */
async function userFactors(op: Operator, args: AdminArgs): Promise<void> {
  const [sub, which] = args.positionals;
  if (sub !== 'reset' || which === undefined) throw usage('authsvc user factors needs: reset ID|EMAIL', 'user');
  noMoreThan(args, 2);
  const user = await findUser(op, which);
  const done = await op.must('user-factors-reset', { ...(await op.initiator()), target_userid: user.user_id });
  op.out(
    args.json
      ? `${JSON.stringify({ user_id: user.user_id, email: user.email, removed_factors: done.removed_factors })}\n`
      : `removed ${done.removed_factors ?? 0} second factor(s) of user ${user.user_id} (${user.email}); their sessions ended\n`,
  );
}

async function userSetRole(op: Operator, args: AdminArgs): Promise<void> {
  const user = await findUser(op, target(args));
  const role = args.positionals[1];
  if (role === undefined) throw usage('authsvc user set-role needs ID|EMAIL and ROLE', 'user');
  noMoreThan(args, 2);
  printUser(op, args, (await setRole(op, user.user_id, role)) ?? user);
}

async function sessionPurge(op: Operator, args: AdminArgs): Promise<void> {
  noMoreThan(args, 0);
  if (args.user !== null) {
    const user = await findUser(op, args.user);
    const reply = await op.act('session-delete-userid', {
      session_token: (await op.initiator()).session_token,
      user_id: user.user_id,
      keep_current_session: false,
    });
    // no_sessions is not a refusal here: the user has no session left, which is what was asked.
    if (!reply.ok && reply.reason !== failures.no_sessions.reason) throw refusal('session-delete-userid', reply);
    const deleted = reply.ok ? reply.value.deleted_sessions : 0;
    op.out(
      args.json
        ? `${JSON.stringify({ user_id: user.user_id, deleted_sessions: deleted })}\n`
        : `deleted ${deleted} session(s) of user ${user.user_id} (${user.email})\n`,
    );
    return;
  }
  // The purge the server's hourly timer runs (store.purgeExpired), with its lock between instances.
  const report = await op.runner.store.purgeExpired(op.runner.clock.now(), { batch: op.runner.purgeBatch });
  if (!report.ran) throw new Stop(1, 'another instance is purging right now; nothing was deleted');
  op.out(
    args.json
      ? `${JSON.stringify(report.deleted)}\n`
      : table(
          ['table', 'deleted'],
          Object.entries(report.deleted).map(([name, deleted]) => ({ table: name, deleted })),
        ),
  );
}

/** A yes from the terminal or from the first line of piped stdin. */
async function confirm(terminal: Terminal, question: string): Promise<boolean> {
  terminal.stderr.write(question);
  const lines = createInterface({ input: terminal.stdin });
  for await (const line of lines) {
    lines.close();
    return ['yes', 'y'].includes(line.trim().toLowerCase());
  }
  return false;
}

const USER_VERBS = ['list', 'show', 'add', 'lock', 'unlock', 'delete', 'reset-password', 'set-role', 'factors'];

async function runUserOrSession(op: Operator, args: AdminArgs, terminal: Terminal): Promise<void> {
  if (args.group === 'session') return sessionPurge(op, args);
  switch (args.verb) {
    case 'list':
      return userList(op, args);
    case 'show': {
      const user = await findUser(op, target(args));
      noMoreThan(args, 1);
      return printUser(op, args, user);
    }
    case 'add':
      return userAdd(op, args, terminal);
    case 'lock':
    case 'unlock':
      return userLock(op, args, args.verb);
    case 'delete':
      return userDelete(op, args, terminal);
    case 'reset-password':
      return userResetPassword(op, args, terminal);
    case 'factors':
      return userFactors(op, args);
    default:
      return userSetRole(op, args);
  }
}

/** Checks the words, then the configuration, then runs; the exit code. */
async function run(args: AdminArgs, env: Environment, terminal: Terminal): Promise<number> {
  if (args.problems.length > 0) throw usage(args.problems.join('\n'), args.group);
  const verbs = args.group === 'user' ? USER_VERBS : args.group === 'session' ? ['purge'] : ['check'];
  if (args.verb === null || !verbs.includes(args.verb)) {
    throw usage(
      args.verb === null ? `authsvc ${args.group} needs a command` : `unknown command "${args.group} ${args.verb}"`,
      args.group,
    );
  }
  if (args.group !== 'session' && args.user !== null) throw usage('--user goes with session purge', args.group);
  if (args.group === 'policy') {
    noMoreThan(args, 1);
    const file = args.positionals[0];
    if (file !== undefined) return checkPolicy(file, args.json, terminal);
  }
  const fromStartFolder = usesStartFolder(args.configArgv, env);
  if (fromStartFolder) {
    terminal.stderr.write(
      `authsvc: using npm start's settings (${START_ENV_FILE}); give --envfile=FILE to use another configuration\n`,
    );
  }
  const inputs = readInputs(fromStartFolder ? [...startFolderArgv(), ...args.configArgv] : args.configArgv, env);
  for (const line of overriddenOptions(inputs)) terminal.stderr.write(`authsvc: warning: ${line}\n`);
  if (args.group === 'policy') {
    const resolved = await resolveConfig(inputs);
    if (resolved.permissions === null) {
      throw new Stop(2, configProblems(resolved.ok ? [] : resolved.problems, fromStartFolder));
    }
    return checkPolicy(resolved.permissions.path, args.json, terminal);
  }
  const loaded = await loadStartup(inputs);
  if (!loaded.ok) throw new Stop(2, configProblems(loaded.problems, fromStartFolder));
  const runner = await openActionRunner({ config: loaded.config, policy: loaded.policy, logStream: terminal.stderr });
  if (runner.credentialsFile !== null) {
    terminal.stderr.write(`authsvc: a new database: the superuser's credentials are in ${runner.credentialsFile}\n`);
  }
  const op = new Operator(runner, terminal);
  try {
    await runUserOrSession(op, args, terminal);
    return 0;
  } finally {
    await op.close().finally(() => runner.close());
  }
}

/** The problems, and when a required item is missing, where to give it (the folder read, or every way). */
function configProblems(problems: readonly string[], fromStartFolder: boolean): string {
  const list = `cannot read the configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`;
  if (!problems.some((p) => p.endsWith(' is required'))) return list;
  const hint = fromStartFolder ? `add the missing items to ${START_ENV_FILE}` : missingConfigurationHint();
  return `${list}\n${hint}`;
}

export async function runAdmin(argv: readonly string[], env: Environment, terminal: Terminal): Promise<number> {
  const args = parseAdminArgs(argv);
  if (args.help) {
    terminal.stdout.write(groupHelp(args.group));
    return 0;
  }
  try {
    return await run(args, env, terminal);
  } catch (error) {
    if (error instanceof Stop) {
      terminal.stderr.write(`authsvc: ${error.message}\n`);
      return error.exitCode;
    }
    // The database cannot be reached, or another fault: one line, not a stack.
    terminal.stderr.write(`authsvc: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
