/**
 * user-edit and internal-user-edit: one edit pipeline behind two gates.
 *
 * user-edit (spec; docs/design.md#who-may-call-what): a user edits their own full_name and email; a superuser edits
 * anyone's, and also is_active and user_role. Checks, in order, so that a refusal never writes:
 * 1. the target is not a system account (2, 3);
 * 2. update_dict holds only those four items, each of its type;
 * 3. the initiator (accounts/initiator.ts): their session, their stored role, active;
 * 4. permission: non-superusers edit only themselves and only full_name and email;
 * 5. role and activity: never of account 1 nor of oneself (no superuser can lock themselves out or
 *    demote the first account); never to or from the role `locked` (that is user-lock's job: it
 *    remembers the previous role and ends sessions);
 * 6. one's own email change: the password, through the one credential check, and the new address is
 *    unverified until user-set-emailverified confirms it, so a stolen session alone cannot move the
 *    account to an address that then receives its password reset (docs/design.md#email-changes);
 *    a superuser correcting someone else's address needs neither;
 * 7. the shared pipeline (applyEdit): a role of the policy; the name normalised and free of links, the
 *    email normalised, valid and unique.
 *
 * internal-user-edit is for the frontend's own use: it checks no permissions, so end-user input must
 * never reach it. It refuses to change accounts 2 and 3 or account 1's role and activity, as user-edit
 * does; it refuses the forbidden items (the spec names them), then unknown ones and types,
 * and runs the same pipeline without the end-user-only link check; extra_info is merged by
 * compare-and-swap on the stored text.
 */
import { checkCredentials } from '../accounts/credentials.js';
import { STEP_UP, stepUpFresh } from '../accounts/second-step.js';
import { hashToken } from '../domain/tokens.js';
import { checkInitiator } from '../accounts/initiator.js';
import { editedEmail, editedFullName, parseUpdate } from '../accounts/user-edits.js';
import type { EditableKey, UserUpdate } from '../accounts/user-edits.js';
import { userInfo } from '../accounts/user-info.js';
import { ANONYMOUS_ID, DUMMY_ID, SUPERUSER_ID } from '../domain/fixed-accounts.js';
import { isBoundedDict, mergeDict } from '../domain/json-dict.js';
import { fail, invalid, ok } from '../domain/result.js';
import type { Result } from '../domain/result.js';
import type { userEditActions } from '../protocol/actions/user-edit.js';
import { normaliseEmail } from '../protocol/index.js';
import type { JsonObject, UserInfoDict } from '../protocol/index.js';
import type { UserRecord } from '../services/store/index.js';
import type { UserChanges } from '../services/store/index.js';
import { CAS_ATTEMPTS, casBackoff } from './cas-retry.js';
import { defineAction } from './define.js';
import type { Deps, FamilyHandlers, Meta } from './define.js';

type Edited = { user_info: UserInfoDict | null };
type Changes = { -readonly [K in keyof UserChanges]: UserChanges[K] };
type EditFailure = 'role_change_not_valid' | 'invalid_full_name' | 'invalid_email' | 'email_taken' | 'user_not_found';
/** Only an edit that merges extra_info can fail these. */
type MergeFailure = 'extra_info_too_large' | 'edit_conflict';

interface EditPlan {
  readonly target: number;
  readonly update: UserUpdate;
  /** End users may not put a link in their name; the frontend's own edits may. */
  readonly refuseLinks: boolean;
  /** A changed address starts unverified (one's own change through user-edit). */
  readonly unverifyNewEmail: boolean;
  /** Records the audit event of a change of role or activity. */
  readonly audit: (changes: UserChanges, before: UserRecord) => void;
  /** Records that the address changed, with the one it replaced (the security mail goes there). */
  readonly emailChanged: (previous: string) => void;
}

/** email.changed: the subject's email is the address before the change. */
function recordEmailChange(deps: Deps, meta: Meta, target: number, previous: string, bySuperuser: boolean): void {
  deps.audit.record({
    event: 'email.changed',
    reqid: meta.reqid,
    subject: { userId: target, ip: meta.clientIp, email: previous },
    detail: { action: meta.action, by_superuser: bySuperuser },
  });
}

const none = { user_info: null };

/** The role check and the values that do not depend on the stored user (the name normalised as stored). */
function stageChanges(deps: Deps, plan: EditPlan): Changes | 'role_change_not_valid' | 'invalid_full_name' {
  const { update } = plan;
  if (update.userRole !== undefined && !deps.policy.current().roles.has(update.userRole)) {
    return 'role_change_not_valid';
  }
  const changes: Changes = {};
  if (update.fullName !== undefined) {
    const name = editedFullName(update.fullName, { refuseLinks: plan.refuseLinks });
    if (name === null) return 'invalid_full_name';
    changes.fullName = name;
  }
  if (update.emailVerified !== undefined) changes.emailVerified = update.emailVerified;
  if (update.isActive !== undefined) changes.isActive = update.isActive;
  if (update.userRole !== undefined) changes.userRole = update.userRole;
  return changes;
}

/** Writes the changes (the email checked against the stored one), reads the user back, audits. */
async function write(
  deps: Deps,
  plan: EditPlan,
  staged: Changes,
  before: UserRecord,
  extraInfo?: { readonly previousText: string | null; readonly next: JsonObject },
): Promise<Result<Edited, EditFailure> | 'conflict'> {
  const changes: Changes = { ...staged };
  if (plan.update.email !== undefined) {
    const email = editedEmail(plan.update.email, before.email);
    if (email === null) return fail('invalid_email', none);
    changes.email = email;
    if (plan.unverifyNewEmail && email !== before.email) changes.emailVerified = false;
  }
  const outcome = await deps.store.users.edit(plan.target, changes, deps.clock.now(), extraInfo);
  if (outcome === 'email_taken') return fail('email_taken', none);
  if (outcome === 'not_found') return fail('user_not_found', none);
  if (outcome === 'conflict') return 'conflict';
  const edited = await deps.store.users.byId(plan.target);
  if (edited === null) return fail('user_not_found', none);
  // Deactivation or a role change ends what the old standing opened, as user-lock does
  // (docs/design.md#superuser-lock-and-what-ends-with-it).
  if (changes.isActive === false || (changes.userRole ?? before.userRole) !== before.userRole) {
    await deps.store.apiKeys.revokeForUser(plan.target);
  }
  if (changes.userRole !== undefined || changes.isActive !== undefined) plan.audit(changes, before);
  if (changes.email !== undefined && changes.email !== before.email) plan.emailChanged(before.email);
  return ok({ user_info: userInfo(edited) });
}

/** The pipeline for a target already read and an update without extra_info: one write. */
async function applyEdit(deps: Deps, plan: EditPlan, current: UserRecord): Promise<Result<Edited, EditFailure>> {
  const staged = stageChanges(deps, plan);
  if (typeof staged === 'string') return fail(staged, none);
  const written = await write(deps, plan, staged, current);
  // Without extra_info's compare-and-swap nothing can conflict but a row gone meanwhile.
  return written === 'conflict' ? fail('user_not_found', none) : written;
}

/** The pipeline reading the target afresh for each compare-and-swap attempt of extra_info's merge. */
async function applyMergingEdit(deps: Deps, plan: EditPlan): Promise<Result<Edited, EditFailure | MergeFailure>> {
  const staged = stageChanges(deps, plan);
  if (typeof staged === 'string') return fail(staged, none);
  for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
    const current = await deps.store.users.forEdit(plan.target);
    if (current === null) return fail('user_not_found', none);
    let extraInfo: { previousText: string | null; next: JsonObject } | undefined;
    if (plan.update.extraInfo !== undefined) {
      const next = mergeDict(current.user.extraInfo ?? {}, plan.update.extraInfo);
      if (!isBoundedDict(next)) return fail('extra_info_too_large', none);
      extraInfo = { previousText: current.extraInfoText, next };
    }
    const written = await write(deps, plan, staged, current.user, extraInfo);
    if (written !== 'conflict') return written;
    await casBackoff(attempt, deps.random);
  }
  return fail('edit_conflict', none);
}

const SELF_EDITABLE: ReadonlySet<EditableKey> = new Set(['full_name', 'email']);
const SUPERUSER_EDITABLE: ReadonlySet<EditableKey> = new Set(['full_name', 'email', 'is_active', 'user_role']);

const NOT_AVAILABLE = 'User session info not available for this user edit attempt.';
const UPDATE_FAILED = 'User update failed.';
const PASSWORD_DID_NOT_MATCH = 'Your password did not match.';

const userEdit = defineAction('user-edit', {
  messages: {
    ok: 'User update successful.',
    failures: {
      system_account: 'Editing anonymous/locked user accounts not allowed.',
      forbidden_update_keys: 'extra elements in update_dict not allowed',
      session_not_found: NOT_AVAILABLE,
      session_mismatch: NOT_AVAILABLE,
      role_mismatch: NOT_AVAILABLE,
      role_not_in_policy: NOT_AVAILABLE,
      caller_not_valid: NOT_AVAILABLE,
      edit_not_permitted: "You don't have permission to make this change.",
      protected_account: "You don't have permission to make this change.",
      locked_via_user_lock: 'Locked accounts are changed with lock/unlock.',
      role_change_not_valid: 'unknown role change request in update_dict',
      user_not_found: UPDATE_FAILED,
      invalid_full_name: 'The full name provided is not valid: it must not be empty or contain a link.',
      invalid_email: "The email address provided doesn't seem to be a valid email address.",
      email_taken: "That email address can't be used for this account.",
      wrong_credentials: PASSWORD_DID_NOT_MATCH,
      temporarily_locked: PASSWORD_DID_NOT_MATCH,
      user_inactive: PASSWORD_DID_NOT_MATCH,
      step_up_required: STEP_UP,
    },
  },
  async handle(deps, input, meta) {
    const target = input.target_userid;
    if (target === ANONYMOUS_ID || target === DUMMY_ID) return fail('system_account', none);

    const parsed = parseUpdate(input.update_dict, SUPERUSER_EDITABLE);
    if (!parsed.ok) return parsed.code === 'invalid_params' ? invalid(parsed.problems, none) : fail(parsed.code, none);
    const { update, keys } = parsed;

    const initiator = await checkInitiator(deps, input);
    if (!initiator.ok) return fail(initiator.code, none);
    const superuser = initiator.user.userRole === 'superuser';
    if (!superuser && (target !== input.user_id || [...keys].some((key) => !SELF_EDITABLE.has(key)))) {
      return fail('edit_not_permitted', none);
    }

    const standing = update.isActive !== undefined || update.userRole !== undefined;
    if (standing && (target === SUPERUSER_ID || target === input.user_id)) return fail('protected_account', none);
    const current = target === input.user_id ? initiator.user : await deps.store.users.byId(target);
    if (current === null) return fail('user_not_found', none);
    if (standing && (current.userRole === 'locked' || update.userRole === 'locked')) {
      return fail('locked_via_user_lock', none);
    }
    const ownEmailChange =
      target === input.user_id && update.email !== undefined && normaliseEmail(update.email) !== current.email;
    if (ownEmailChange) {
      // A mistyped address is refused before the password is checked, so it costs no guess.
      if (editedEmail(update.email, current.email) === null) return fail('invalid_email', none);
      if (input.password === undefined) {
        return invalid([{ param: 'password', problem: 'missing', required_type: 'str' }], none);
      }
      const check = await checkCredentials(deps, { userId: target }, input.password, meta);
      if (!check.ok) return fail(check.code, none);
      if (check.factors !== null && !(await stepUpFresh(deps, target, hashToken(input.session_token))))
        return fail('step_up_required', none);
    }
    return applyEdit(
      deps,
      {
        target,
        update,
        refuseLinks: true,
        unverifyNewEmail: ownEmailChange,
        emailChanged: (previous) => recordEmailChange(deps, meta, target, previous, target !== input.user_id),
        audit: (changes, before) =>
          deps.audit.record({
            event: 'user.edited',
            reqid: meta.reqid,
            subject: { userId: target },
            detail: {
              action: 'user-edit',
              ...(changes.userRole === undefined ? {} : { role: changes.userRole, previous_role: before.userRole }),
              ...(changes.isActive === undefined ? {} : { is_active: changes.isActive }),
            },
          }),
      },
      current,
    );
  },
});

/**
 * Items internal-user-edit refuses (spec), plus the columns that are ours: `last_updated` (always the
 * clock's), `locked_until` (the lock-out's) and `previous_role` (user-lock's).
 */
const FORBIDDEN_USER_KEYS: ReadonlySet<string> = new Set([
  'user_id',
  'system_id',
  'password',
  'emailverify_sent_datetime',
  'emailforgotpass_sent_datetime',
  'emailchangepass_sent_datetime',
  'last_login_success',
  'last_login_try',
  'failed_login_tries',
  'created_on',
  'last_updated',
  'locked_until',
  'previous_role',
]);

const INTERNAL_EDITABLE: ReadonlySet<EditableKey> = new Set([
  'full_name',
  'email',
  'email_verified',
  'is_active',
  'user_role',
  'extra_info',
]);

const USER_EDIT_FAILED = 'Invalid edit-user request: invalid update parameters.';

const internalUserEdit = defineAction('internal-user-edit', {
  messages: {
    ok: 'User-info update successful.',
    failures: {
      system_account: USER_EDIT_FAILED,
      protected_account: USER_EDIT_FAILED,
      forbidden_update_keys: USER_EDIT_FAILED,
      user_not_found: 'User-info update failed.',
      invalid_full_name: USER_EDIT_FAILED,
      invalid_email: USER_EDIT_FAILED,
      email_taken: USER_EDIT_FAILED,
      role_change_not_valid: USER_EDIT_FAILED,
      extra_info_too_large: USER_EDIT_FAILED,
      edit_conflict: 'User-info update failed.',
    },
  },
  async handle(deps, input, meta) {
    const target = input.target_userid;
    // Trusted, yet the accounts the server relies on stay as they are: the anonymous visitor (a role of
    // its own would reach every visitor's session), the dummy that equalises login timing, and the first
    // superuser's role and activity.
    if (target === ANONYMOUS_ID || target === DUMMY_ID) return fail('system_account', none);
    if (Object.keys(input.update_dict).some((key) => FORBIDDEN_USER_KEYS.has(key))) {
      return fail('forbidden_update_keys', none);
    }
    const parsed = parseUpdate(input.update_dict, INTERNAL_EDITABLE);
    if (!parsed.ok) return parsed.code === 'invalid_params' ? invalid(parsed.problems, none) : fail(parsed.code, none);
    if (target === SUPERUSER_ID && (parsed.update.isActive !== undefined || parsed.update.userRole !== undefined)) {
      return fail('protected_account', none);
    }
    return applyMergingEdit(deps, {
      target,
      update: parsed.update,
      refuseLinks: false,
      unverifyNewEmail: false,
      emailChanged: (previous) => recordEmailChange(deps, meta, target, previous, false),
      audit: (changes) =>
        deps.audit.record({
          event: 'user.edited',
          reqid: meta.reqid,
          subject: { userId: target },
          detail: {
            action: 'internal-user-edit',
            ...(changes.userRole === undefined ? {} : { role: changes.userRole }),
            ...(changes.isActive === undefined ? {} : { is_active: changes.isActive }),
          },
        }),
    });
  },
});

export const userEditHandlers = {
  'user-edit': userEdit,
  'internal-user-edit': internalUserEdit,
} satisfies FamilyHandlers<typeof userEditActions>;
