/**
 * The users' own security history (docs/design.md#security-history): an audit sink that keeps the events a user may
 * see of their own account in `user_events`, for `user-events`. One place emits (the audit catalogue), this is one
 * more sink. The events a request recorded are written when its handler is done (the dispatcher calls `pending`
 * before the reply), one after another; a write that fails is logged, never surfaced: the action has happened.
 */
import type { Clock } from '../domain/ports.js';
import type { AuditEvent, AuditSink } from '../log/audit.js';
import type { AuditEventName } from '../log/audit-catalogue.js';
import type { Logger } from '../log/logger.js';
import type { EventDetail, NewUserEvent, UserEventRepo } from '../services/store/index.js';

const DAY_MS = 86_400_000;

/** Events kept per user: the oldest go first (a guessing run cannot grow a history without bound). */
export const HISTORY_KEPT = 1000;

/** The sessions ended that a user would call "signed out elsewhere", not their own logouts. */
const REVOKING = new Set(['session-revoke', 'session-delete-userid']);

/** The events a user's history shows; the others (session.created, ratelimit.hit, policy.*…) are not theirs. */
const SHOWN: Partial<Record<AuditEventName, true | ((event: AuditEvent) => boolean)>> = {
  'user.signed-up': true,
  'email.verified': true,
  'email.changed': true,
  'email.sent': true,
  'login.succeeded': true,
  'login.failed': true,
  'login.second-factor-required': true,
  'second-factor.used': true,
  'second-factor.failed': true,
  'passkey.counter-decreased': true,
  'account.locked-out': true,
  'user.locked': true,
  'user.unlocked': true,
  'user.edited': true,
  'password.changed': true,
  'password.reset': true,
  'factor.added': true,
  'factor.removed': true,
  'factors.reset': true,
  'recovery-codes.replaced': true,
  'apikey.issued': true,
  'apikey.revoked': true,
  'apikey.refresh-reuse-detected': true,
  'session.ended': (event) => event.event === 'session.ended' && REVOKING.has(String(event.detail.action)),
};

export const historyEventNames = (Object.keys(SHOWN) as AuditEventName[]).sort();

/** The account an event belongs in the history of, or null. A failed check by email: the account, or the dummy. */
function accountOf(event: AuditEvent): number | null {
  const shown = SHOWN[event.event];
  if (shown === undefined || (shown !== true && !shown(event))) return null;
  return event.subject?.userId ?? event.subject?.account ?? null;
}

export interface HistorySink extends AuditSink {
  /** The repo to write to, once the store is open (the audit is wired before it). */
  attach(repo: UserEventRepo): void;
}

export function historySink(options: {
  readonly clock: Clock;
  readonly log: Logger;
  /** `eventretention`: days an event is kept; 0 keeps none. */
  readonly retentionDays: number;
  readonly kept?: number;
}): HistorySink {
  const { clock, log, retentionDays } = options;
  const kept = options.kept ?? HISTORY_KEPT;
  let repo: UserEventRepo | null = null;
  /** Recorded, not yet written: the request's own statements run first, then these, one after another. */
  let recorded: Array<{ readonly event: AuditEvent; readonly userId: number; readonly time: number }> = [];
  let writing: Promise<void> | null = null;

  async function writeAll(to: UserEventRepo, batch: typeof recorded): Promise<void> {
    // A lock-out comes with the failure that caused it (login.failed, second-factor.failed…) in the same request:
    // the two make one row, so the failure that locks runs the statements of any other failure
    // (docs/design.md#one-credential-check).
    const lockouts = new Map<string, (typeof recorded)[number]>();
    const rows: NewUserEvent[] = [];
    const row = (entry: (typeof recorded)[number], name: string, detail: EventDetail): NewUserEvent => ({
      userId: entry.userId,
      event: name,
      time: entry.time,
      ipAddress: entry.event.subject?.ip ?? null,
      userAgent: entry.event.subject?.userAgent ?? null,
      detail,
      expires: entry.time + retentionDays * DAY_MS,
    });
    for (const entry of batch) {
      const { event } = entry;
      const key = `${String(event.reqid)}:${String(entry.userId)}`;
      const lockout = lockouts.get(key);
      if (event.event === 'account.locked-out') lockouts.set(key, entry);
      else if (lockout === undefined) rows.push(row(entry, event.event, event.detail ?? {}));
      else {
        lockouts.delete(key);
        rows.push(row(entry, lockout.event.event, { ...event.detail, ...lockout.event.detail }));
      }
    }
    // A lock-out no failure followed is a row of its own.
    for (const lockout of lockouts.values()) rows.push(row(lockout, lockout.event.event, lockout.event.detail ?? {}));
    for (const next of rows) {
      try {
        await to.add(next, kept);
      } catch (error) {
        log.warn('security history not written', {
          audit: next.event,
          cause: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }

  return {
    attach(to) {
      repo = to;
    },
    record(event) {
      if (repo === null || retentionDays === 0) return;
      const userId = accountOf(event);
      if (userId !== null) recorded.push({ event, userId, time: clock.now() });
    },
    pending() {
      const to = repo;
      if (to === null || recorded.length === 0) return writing;
      const batch = recorded;
      recorded = [];
      const run: Promise<void> = (writing ?? Promise.resolve()).then(() => writeAll(to, batch));
      writing = run;
      void run.finally(() => {
        if (writing === run) writing = null;
      });
      return run;
    },
  };
}
