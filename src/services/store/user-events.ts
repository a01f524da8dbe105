/**
 * The users' own security history (docs/design.md#security-history): the events of the audit catalogue that a user
 * may see of their own account, newest first. Reads and the trim go through the (user_id, event_id) index; the purge
 * removes expired rows by `expires` (cleanup.ts).
 */
import type { Db } from './db.js';
import { isForeignKeyViolation, jsonToDb, timeToDb } from './dialect.js';
import type { Row } from './records.js';
import { rowToColumns } from './tables.js';
import type { Table } from './tables.js';

export type EventDetail = Readonly<Record<string, string | number | boolean>>;

export interface UserEventRecord {
  /** Increasing: the page cursor (`before`). */
  readonly eventId: number;
  readonly userId: number;
  /** The audit catalogue's name (src/log/audit-catalogue.ts). */
  readonly event: string;
  readonly time: number;
  readonly ipAddress: string | null;
  readonly userAgent: string | null;
  readonly detail: EventDetail;
}

export interface NewUserEvent extends Omit<UserEventRecord, 'eventId'> {
  /** When the purge may delete it: the event's time plus the retention. */
  readonly expires: number;
}

export interface UserEventRepo {
  /** Records an event and keeps only the user's newest `keep`; nothing when the user was deleted meanwhile. */
  add(event: NewUserEvent, keep: number): Promise<void>;
  /** The user's unexpired events newest first, those older than event `before` when given, at most `limit`. */
  list(userId: number, now: number, before: number | null, limit: number): Promise<UserEventRecord[]>;
  /** The user agents of the user's newest events of these names (null where an event had none), newest first. */
  agentsOf(userId: number, events: readonly string[], limit: number): Promise<Array<string | null>>;
}

export const USER_EVENTS: Table = {
  name: 'user_events',
  idColumn: 'event_id',
  timeColumns: ['time', 'expires'],
  boolColumns: [],
  intColumns: ['event_id', 'user_id'],
  jsonColumns: ['detail'],
};

const COLUMNS = ['event_id', 'user_id', 'event', 'time', 'ip_address', 'user_agent', 'detail'];

function eventRecord(row: Row): UserEventRecord {
  const c = rowToColumns(USER_EVENTS, row);
  return {
    eventId: c['event_id'] as number,
    userId: c['user_id'] as number,
    event: String(c['event']),
    time: c['time'] as number,
    ipAddress: (c['ip_address'] as string | null | undefined) ?? null,
    userAgent: (c['user_agent'] as string | null | undefined) ?? null,
    detail: (c['detail'] as EventDetail | null | undefined) ?? {},
  };
}

export function userEventRepo(db: Db): UserEventRepo {
  const { knex, dialect } = db;
  const t = (ms: number): number | Date => timeToDb(dialect, ms);
  const events = () => knex(USER_EVENTS.name);

  return {
    async add(event, keep) {
      try {
        await events().insert({
          user_id: event.userId,
          event: event.event,
          time: t(event.time),
          ip_address: event.ipAddress,
          user_agent: event.userAgent,
          detail: jsonToDb(event.detail),
          expires: t(event.expires),
        });
      } catch (error) {
        if (isForeignKeyViolation(error)) return;
        throw error;
      }
      // The oldest event kept is the keep-th newest: everything below it goes, by the same index.
      const oldest = (await events()
        .first('event_id')
        .where('user_id', event.userId)
        .orderBy('event_id', 'desc')
        .offset(keep - 1)) as Row | undefined;
      if (oldest !== undefined) {
        await events().delete().where('user_id', event.userId).andWhere('event_id', '<', Number(oldest['event_id']));
      }
    },

    async list(userId, now, before, limit) {
      const query = events().select(COLUMNS).where('user_id', userId).andWhere('expires', '>', t(now));
      if (before !== null) void query.andWhere('event_id', '<', before);
      const rows = (await query.orderBy('event_id', 'desc').limit(limit)) as Row[];
      return rows.map(eventRecord);
    },

    async agentsOf(userId, names, limit) {
      const rows = (await events()
        .select('user_agent')
        .where('user_id', userId)
        .whereIn('event', names)
        .orderBy('event_id', 'desc')
        .limit(limit)) as Row[];
      return rows.map((row) => (typeof row['user_agent'] === 'string' ? row['user_agent'] : null));
    },
  };
}
