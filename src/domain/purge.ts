/**
 * The purge of expired rows as the store runs it and the metrics count it (docs/design.md#sessions-and-the-purge):
 * the tables it deletes from, in its order, and who hears how each purge ended.
 */

/**
 * The tables, in the purge's order: refresh tokens before the no-session keys they keep alive, and sessions last
 * (deleting one deletes its session-tied keys). A closed set: the metrics' `table` label carries nothing else.
 */
export const PURGED_TABLES = [
  'refresh_tokens',
  'apikeys_nosession',
  'apikeys',
  'login_tickets',
  'passkey_challenges',
  'user_events',
  'sessions',
] as const;

export type PurgedTable = (typeof PURGED_TABLES)[number];

/** Who counts the purges (the metrics, when on): how each ended, the rows deleted per table, its seconds. */
export interface PurgeObserver {
  purge(result: 'ran' | 'skipped' | 'failed', deleted: Readonly<Record<string, number>>, seconds: number): void;
}
