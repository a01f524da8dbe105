/**
 * Security events (sessions opened and ended, lock-outs, role changes…) go to an audit sink. The
 * sink is a port: the log now, metrics or webhooks later, without touching the actions.
 */
import type { Logger } from '../log/logger.js';
import type { Pii } from '../log/pii.js';

export interface AuditEvent {
  readonly event: string;
  readonly reqid: string | number;
  /** Personal data: hashed by the sink before it is written. */
  readonly subject?: { readonly userId?: number; readonly ip?: string };
  readonly detail?: Readonly<Record<string, string | number | boolean>>;
}

export interface AuditSink {
  record(event: AuditEvent): void;
}

export function logAuditSink(logger: Logger, pii: Pii): AuditSink {
  return {
    record({ event, reqid, subject, detail }) {
      logger.info('audit', {
        audit: event,
        reqid,
        ...(subject?.userId === undefined ? {} : { user: pii(subject.userId) }),
        ...(subject?.ip === undefined ? {} : { ip: pii(subject.ip) }),
        ...detail,
      });
    },
  };
}
