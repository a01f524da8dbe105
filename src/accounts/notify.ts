/**
 * The security mail (docs/design.md#security-mail): an audit sink that tells a user, by mail, what happened to their
 * account, for the kinds the operator turned on with `notify`. It only enqueues (services/mail/notify-queue.ts): the
 * address is read, and the mail composed and sent, after the action has answered, so a slow or dead SMTP server never
 * delays or fails an action.
 */
import { ANONYMOUS_ID, DUMMY_ID } from '../domain/fixed-accounts.js';
import type { NotifyKind } from '../domain/notify-kinds.js';
import type { Clock } from '../domain/ports.js';
import type { AuditEvent, AuditSink } from '../log/audit.js';
import type { AuditEventName } from '../log/audit-catalogue.js';
import type { NotifyQueue } from '../services/mail/notify-queue.js';
import { securityMail } from '../services/mail/templates.js';
import type { SecurityMailKind } from '../services/mail/templates.js';
import type { Store } from '../services/store/index.js';
import { HISTORY_KEPT } from './history.js';

/** Which events mail, under which `notify` kind. */
const MAILS: Partial<Record<AuditEventName, { readonly kind: NotifyKind; readonly mail: SecurityMailKind }>> = {
  'account.locked-out': { kind: 'lockout', mail: 'locked' },
  'password.changed': { kind: 'password', mail: 'password-changed' },
  'password.reset': { kind: 'password', mail: 'password-reset' },
  'email.changed': { kind: 'email', mail: 'email-changed' },
  'factor.added': { kind: 'factor', mail: 'factor-added' },
  'factor.removed': { kind: 'factor', mail: 'factor-removed' },
  'factors.reset': { kind: 'factor', mail: 'factor-removed' },
  'apikey.issued': { kind: 'apikey', mail: 'apikey-created' },
};

/** The events of a login from a browser: the password step of user-login, with or without a second step after it. */
const LOGINS: readonly AuditEventName[] = ['login.succeeded', 'login.second-factor-required'];

/** The mail an event asks for, or null. */
function mailOf(event: AuditEvent): { readonly kind: NotifyKind; readonly mail: SecurityMailKind } | null {
  if (LOGINS.includes(event.event)) {
    const detail = event.detail as { readonly action?: unknown } | undefined;
    return detail?.action === 'user-login' && event.subject?.userAgent !== undefined
      ? { kind: 'newdevice', mail: 'new-device' }
      : null;
  }
  return MAILS[event.event] ?? null;
}

export interface NotifySink extends AuditSink {
  /** The store to read addresses and login history from, once it is open (the audit is wired before it). */
  attach(store: Pick<Store, 'users' | 'userEvents'>): void;
}

export function notifySink(options: {
  readonly kinds: readonly NotifyKind[];
  readonly queue: NotifyQueue;
  readonly clock: Clock;
  readonly serverName: string;
  /** The history's writes, which a new-device check waits for (its own login must be in it). */
  readonly history: Pick<AuditSink, 'pending'>;
}): NotifySink {
  const { kinds, queue, clock, serverName, history } = options;
  let store: Pick<Store, 'users' | 'userEvents'> | null = null;

  /** A login is from a new device when the user has logged in before, never with this user agent. */
  async function isNewDevice(on: Pick<Store, 'userEvents'>, userId: number, userAgent: string): Promise<boolean> {
    await history.pending?.();
    const agents = await on.userEvents.agentsOf(userId, LOGINS, HISTORY_KEPT);
    // The newest is this login's own row; the user agent counts as seen if any earlier login had it.
    const earlier = agents.slice(1);
    return earlier.length > 0 && !earlier.includes(userAgent);
  }

  return {
    attach(to) {
      store = to;
    },
    record(event) {
      const on = store;
      const userId = event.subject?.userId;
      if (on === null || userId === undefined || userId === ANONYMOUS_ID || userId === DUMMY_ID) return;
      const wanted = mailOf(event);
      if (wanted === null || !kinds.includes(wanted.kind)) return;
      const { subject } = event;
      const time = new Date(clock.now()).toISOString();
      queue.enqueue({ userId, kind: wanted.mail }, async () => {
        if (wanted.kind === 'newdevice' && !(await isNewDevice(on, userId, subject?.userAgent ?? ''))) return null;
        // An email change is told to the address it replaced: the new one may be the attacker's.
        const to = wanted.kind === 'email' ? (subject?.email ?? null) : ((await on.users.byId(userId))?.email ?? null);
        if (to === null) return null;
        return securityMail(wanted.mail, {
          to,
          serverName,
          baseUrl: '',
          time,
          ipAddress: subject?.ip ?? '',
          browser: subject?.userAgent ?? '',
        });
      });
    },
  };
}
