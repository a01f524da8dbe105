import { Type } from '@sinclair/typebox';
import { Id, NullOnFailure } from '../schema-kit.js';
import type { ActionSpec } from '../action-spec.js';
import { INITIATOR_FAILURES, Initiator } from '../items.js';
import { USER_RATE } from '../rate-class.js';
import { UserInfo } from '../user-info.js';

export const userLockActions = {
  'user-lock': {
    summary:
      'A superuser locks a user (role locked, inactive, sessions and API keys ended) or unlocks them (the previous ' +
      'role and activity back). Never on self nor on accounts 2 and 3.',
    changesState: true,
    rate: USER_RATE,
    failures: ['not_superuser', 'self_lock', 'system_account', ...INITIATOR_FAILURES, 'user_not_found'],
    input: Type.Object({
      ...Initiator,
      target_userid: Id({ description: 'the user to lock or unlock' }),
      action: Type.Unsafe<'lock' | 'unlock'>({
        type: 'string',
        enum: ['lock', 'unlock'],
        description: 'lock or unlock',
      }),
    }),
    output: Type.Object({
      user_info: NullOnFailure(UserInfo),
      locked: NullOnFailure(Type.Boolean({ description: 'whether the account is now locked by a superuser' })),
    }),
  },
} as const satisfies Record<string, ActionSpec>;
