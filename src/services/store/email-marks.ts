/**
 * The email actions' marks on the users row: when the sign-up verification and the forgot-password
 * mail were last sent. The forgot-pass 24-hour check and its record are one compare-and-swap
 * (`claimForgotPass`), so two requests at once send one mail; a claim whose mail could not be sent is
 * given back (`releaseForgotPass`), so a refused request records nothing. These marks are not edits
 * of the account: `last_updated` stays as it is.
 */
import type { Db } from './db.js';
import { timeToDb } from './dialect.js';
import { USERS, columnsToRow } from './tables.js';
import type { ColumnValues, UserColumns } from './tables.js';

const FORGOT = 'emailforgotpass_sent_datetime';
const VERIFY = 'emailverify_sent_datetime';

export interface EmailMarksRepo {
  /** Records a sign-up verification mail on a still-unverified account; false when it is not one. */
  recordVerifySent(userId: number, now: number): Promise<boolean>;
  /**
   * Sets the forgot-pass mark to `now` if the account is active, verified, not locked or anonymous,
   * and its mark is unset or before `windowStart`; true when this call did.
   */
  claimForgotPass(userId: number, now: number, windowStart: number): Promise<boolean>;
  /** Puts `previous` back if the mark is still this call's `claimed` time. */
  releaseForgotPass(userId: number, claimed: number, previous: number | null): Promise<void>;
  /** A successful password reset opens the window again. */
  clearForgotPass(userId: number): Promise<void>;
}

export function emailMarksRepo({ knex, dialect }: Db): EmailMarksRepo {
  // A written time is converted by columnsToRow; a time compared in a WHERE is bound as the dialect stores it.
  const t = (ms: number): number | Date => timeToDb(dialect, ms);
  const user = (userId: number) => knex(USERS.name).where('user_id', userId);
  const toDb = (values: ColumnValues<UserColumns>) => columnsToRow(USERS, dialect, values);

  return {
    async recordVerifySent(userId, now) {
      return (
        (await user(userId)
          .andWhere('email_verified', false)
          .update(toDb({ [VERIFY]: now }))) > 0
      );
    },

    async claimForgotPass(userId, now, windowStart) {
      const changed = await user(userId)
        .andWhere('is_active', true)
        .andWhere('email_verified', true)
        .whereNotIn('user_role', ['locked', 'anonymous'])
        .andWhere((q) => {
          void q.whereNull(FORGOT).orWhere(FORGOT, '<', t(windowStart));
        })
        .update(toDb({ [FORGOT]: now }));
      return changed > 0;
    },

    async releaseForgotPass(userId, claimed, previous) {
      await user(userId)
        .andWhere(FORGOT, t(claimed))
        .update(toDb({ [FORGOT]: previous }));
    },

    async clearForgotPass(userId) {
      await user(userId).update(toDb({ [FORGOT]: null }));
    },
  };
}
