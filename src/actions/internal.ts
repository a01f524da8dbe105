/**
 * internal-session-edit and internal-user-edit: edits for the frontend's own use. They check no
 * permissions (DESIGN decision 13), so end-user input must never reach them; they still refuse what
 * would corrupt a record (forbidden items, wrong types, roles outside the policy, duplicate emails).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { editedEmail, editedFullName, parseUpdate } from '../accounts/user-edits.js';
import type { EditableKey } from '../accounts/user-edits.js';
import { userInfo } from '../accounts/user-info.js';
import { isBoundedDict, mergeDict } from '../domain/json-dict.js';
import { fail, invalid, ok } from '../domain/result.js';
import { hashToken } from '../domain/tokens.js';
import { formatDateTime } from '../protocol/index.js';
import type { JsonObject } from '../protocol/index.js';
import type { Random } from '../domain/ports.js';
import type { UserChanges } from '../store/user-admin.js';
import { defineAction } from './define.js';

/**
 * Compare-and-swap attempts before giving up under concurrent edits of one session. Every round has
 * one winner; with several processes or a connection pool many edits can be in flight at once, so
 * losers wait a short, random, growing time before trying again (else they keep colliding).
 */
const ATTEMPTS = 40;
const MAX_BACKOFF_MS = 40;

const backoff = (attempt: number, random: Random): Promise<void> => {
  const ceiling = Math.min(MAX_BACKOFF_MS, 2 ** attempt);
  return sleep(((random.bytes(1)[0] ?? 0) / 255) * ceiling);
};

export const internalSessionEdit = defineAction<
  'internal-session-edit',
  'session_not_found' | 'extra_info_too_large' | 'edit_conflict'
>({
  name: 'internal-session-edit',
  messages: {
    ok: 'Session extra_info update successful.',
    failures: {
      session_not_found: 'Session extra_info update failed.',
      extra_info_too_large: 'Session extra_info update failed.',
      edit_conflict: 'Session extra_info update failed.',
    },
  },
  async handle(deps, input) {
    const tokenHash = hashToken(input.target_session_token);
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const now = deps.clock.now();
      const session = await deps.store.sessions.find(tokenHash, now);
      if (session === null) return fail('session_not_found', { session_info: null });
      const merged = mergeDict(session.extraInfo, input.update_dict);
      if (!isBoundedDict(merged)) return fail('extra_info_too_large', { session_info: null });
      if (await deps.store.sessions.swapExtraInfo(tokenHash, session.extraInfo, merged, now)) {
        return ok({
          session_info: {
            user_id: session.userId,
            session_token: input.target_session_token,
            ip_address: session.ipAddress,
            user_agent: session.userAgent,
            created: formatDateTime(session.created),
            expires: formatDateTime(session.expires),
            extra_info_json: merged,
          },
        });
      }
      await backoff(attempt, deps.random);
    }
    return fail('edit_conflict', { session_info: null });
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

/**
 * The forbidden items first (the spec names them), then unknown ones and types. Values are stored as
 * the end-user actions store them (normalised name and email; a unique email; a policy role), without
 * the end-user-only link check. extra_info is merged by compare-and-swap on the stored text.
 */
export const internalUserEdit = defineAction<
  'internal-user-edit',
  | 'forbidden_update_keys'
  | 'user_not_found'
  | 'invalid_full_name'
  | 'invalid_email'
  | 'email_taken'
  | 'role_change_not_valid'
  | 'extra_info_too_large'
  | 'edit_conflict'
>({
  name: 'internal-user-edit',
  messages: {
    ok: 'User-info update successful.',
    failures: {
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
    const none = { user_info: null };
    const target = input.target_userid;
    if (Object.keys(input.update_dict).some((key) => FORBIDDEN_USER_KEYS.has(key))) {
      return fail('forbidden_update_keys', none);
    }
    const parsed = parseUpdate(input.update_dict, INTERNAL_EDITABLE);
    if (!parsed.ok) return parsed.code === 'invalid_params' ? invalid(parsed.problems, none) : fail(parsed.code, none);
    const { update } = parsed;
    if (update.userRole !== undefined && !deps.policy.current().roles.has(update.userRole)) {
      return fail('role_change_not_valid', none);
    }
    const changes: { -readonly [K in keyof UserChanges]: UserChanges[K] } = {};
    if (update.fullName !== undefined) {
      const name = editedFullName(update.fullName, { refuseLinks: false });
      if (name === null) return fail('invalid_full_name', none);
      changes.fullName = name;
    }
    if (update.emailVerified !== undefined) changes.emailVerified = update.emailVerified;
    if (update.isActive !== undefined) changes.isActive = update.isActive;
    if (update.userRole !== undefined) changes.userRole = update.userRole;

    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const current = await deps.store.userAdmin.forEdit(target);
      if (current === null) return fail('user_not_found', none);
      if (update.email !== undefined) {
        const email = editedEmail(update.email, current.user.email);
        if (email === null) return fail('invalid_email', none);
        changes.email = email;
      }
      let extraInfo: { previousText: string | null; next: JsonObject } | undefined;
      if (update.extraInfo !== undefined) {
        const next = mergeDict(current.user.extraInfo ?? {}, update.extraInfo);
        if (!isBoundedDict(next)) return fail('extra_info_too_large', none);
        extraInfo = { previousText: current.extraInfoText, next };
      }
      const outcome = await deps.store.userAdmin.edit(target, changes, deps.clock.now(), extraInfo);
      if (outcome === 'email_taken') return fail('email_taken', none);
      if (outcome === 'not_found') return fail('user_not_found', none);
      if (outcome === 'ok') {
        const edited = await deps.store.users.byId(target);
        if (edited === null) return fail('user_not_found', none);
        // Deactivation or a role change ends sessions and revokes keys, as user-lock does (decision 12).
        if (changes.isActive === false || (changes.userRole ?? current.user.userRole) !== current.user.userRole) {
          await deps.store.apiKeys.revokeForUser(target);
        }
        if (changes.userRole !== undefined || changes.isActive !== undefined) {
          deps.audit.record({
            event: 'internal-user-edit',
            reqid: meta.reqid,
            subject: { userId: target },
            detail: {
              ...(changes.userRole === undefined ? {} : { role: changes.userRole }),
              ...(changes.isActive === undefined ? {} : { is_active: changes.isActive }),
            },
          });
        }
        return ok({ user_info: userInfo(edited) });
      }
      await backoff(attempt, deps.random);
    }
    return fail('edit_conflict', none);
  },
});
