/** internal-session-edit (internal-user-edit comes with the account actions). */
import { setTimeout as sleep } from 'node:timers/promises';
import { isBoundedDict, mergeDict } from '../domain/json-dict.js';
import { fail, ok } from '../domain/result.js';
import { hashToken } from '../domain/tokens.js';
import { formatDateTime } from '../protocol/index.js';
import type { Random } from '../domain/ports.js';
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
