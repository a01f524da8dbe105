/**
 * Security events (src/log/audit-catalogue.ts) go to an audit sink. The sink is a port: the actions record
 * an event and never know whether it is logged, counted or sent to a webhook; the composition root
 * fans one event out to every sink it wires (src/app.ts).
 */
import type { Clock } from '../domain/ports.js';
import type { Logger, Pii } from './logger.js';
import type { RequestId } from '../protocol/index.js';
import { AUDIT_EVENTS } from './audit-catalogue.js';
import type { AuditDetail, AuditEventName } from './audit-catalogue.js';

/** Who and from where. Personal data: written only as digests. */
export interface AuditSubject {
  readonly userId?: number;
  readonly ip?: string;
  /** The email a failed password check presented (the account may not exist). */
  readonly email?: string;
  /**
   * The account an event named by `email` concerns (the dummy account when none has that address), and the end
   * user's user agent where the action knows it: both only for the user's own history (docs/design.md#security-history),
   * never published to the log or the webhooks.
   */
  readonly account?: number;
  readonly userAgent?: string;
}

type EventOf<N extends AuditEventName> = {
  readonly event: N;
  /** The request's id; null for a fact no request caused (a policy reload). */
  readonly reqid: RequestId | null;
  readonly subject?: AuditSubject;
} & (object extends AuditDetail<N> ? { readonly detail?: AuditDetail<N> } : { readonly detail: AuditDetail<N> });

/** What an emit site records: a catalogue name and exactly that event's detail fields. */
export type AuditEvent = { [N in AuditEventName]: EventOf<N> }[AuditEventName];

export interface AuditSink {
  record(event: AuditEvent): void;
  /**
   * What the sink still has to finish for the events recorded so far (the history's writes), or null when nothing:
   * the dispatcher waits for it before replying, so an event is in the user's history when its reply leaves.
   */
  pending?(): Promise<void> | null;
}

/** An event as it leaves the process (log line, webhook body): its time, digests instead of personal data. */
export interface AuditRecord {
  readonly event: AuditEventName;
  /** ISO 8601, from the server's clock when the event was recorded. */
  readonly time: string;
  readonly reqid: RequestId | null;
  /** Keyed digests (piiHasher, src/log/logger.ts), present when the subject had them. */
  readonly user?: string;
  readonly ip?: string;
  readonly email?: string;
  readonly detail: Readonly<Record<string, string | number | boolean>>;
}

/** Where published records go: the log, the webhook queue. Must not throw nor wait. */
export type AuditOutlet = (record: AuditRecord) => void;

export function auditRecord(event: AuditEvent, clock: Clock, pii: Pii): AuditRecord {
  const { subject } = event;
  return {
    event: event.event,
    time: new Date(clock.now()).toISOString(),
    reqid: event.reqid,
    ...(subject?.userId === undefined ? {} : { user: pii(subject.userId) }),
    ...(subject?.ip === undefined ? {} : { ip: pii(subject.ip) }),
    ...(subject?.email === undefined ? {} : { email: pii(subject.email) }),
    detail: event.detail ?? {},
  };
}

/** Stamps and digests each event once, then hands the record to every outlet. */
export function publishingSink(clock: Clock, pii: Pii, outlets: readonly AuditOutlet[]): AuditSink {
  return {
    record(event) {
      const record = auditRecord(event, clock, pii);
      for (const outlet of outlets) outlet(record);
    },
  };
}

/**
 * One log line per event at the catalogue's level: failed logins, lock-outs, rate-limit hits, refresh
 * token reuse and refused reloads at warn, so a warn filter shows the attacks.
 */
export function logOutlet(logger: Logger): AuditOutlet {
  return ({ event, time, reqid, user, ip, email, detail }) => {
    const fields = {
      audit: event,
      time,
      reqid,
      ...(user === undefined ? {} : { user }),
      ...(ip === undefined ? {} : { ip }),
      ...(email === undefined ? {} : { email }),
      ...detail,
    };
    if (AUDIT_EVENTS[event].level === 'warn') logger.warn('audit', fields);
    else logger.info('audit', fields);
  };
}

export function logAuditSink(logger: Logger, pii: Pii, clock: Clock): AuditSink {
  return publishingSink(clock, pii, [logOutlet(logger)]);
}

/** Several sinks as one (the published records, metrics…): each gets every event. */
export function fanOut(...sinks: readonly AuditSink[]): AuditSink {
  return {
    record(event) {
      for (const sink of sinks) sink.record(event);
    },
    pending() {
      const waits = sinks.map((sink) => sink.pending?.() ?? null).filter((wait) => wait !== null);
      return waits.length === 0 ? null : Promise.all(waits).then(() => undefined);
    },
  };
}
