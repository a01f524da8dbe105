/**
 * The delivery queue of the security mails (docs/design.md#security-mail): an action only enqueues, so a slow or
 * dead SMTP server never delays an answer. Each bound (capacity, attempts, one mail per user and kind per throttle
 * window) drops rather than grows. Nothing is durable: a restart loses what waits.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../domain/ports.js';
import type { Logger } from '../../log/logger.js';
import type { Mailer, MailMessage } from './mailer.js';

export type NotifyOutcome = 'sent' | 'failed' | 'dropped' | 'throttled';

export interface NotifyQueueOptions {
  readonly mailer: Mailer;
  readonly clock: Clock;
  readonly log: Logger;
  /** Mails held at most (waiting, waiting for a retry, or being sent); beyond it a mail is dropped. */
  readonly capacity?: number;
  readonly retryDelaysMs?: readonly number[];
  readonly throttleMs?: number;
  readonly onOutcome?: (outcome: NotifyOutcome, kind: string) => void;
}

export interface NotifyQueue {
  /**
   * Never throws, never waits: true when queued. `compose` runs when the mail's turn comes (it may read the
   * database); null = nothing to send.
   */
  enqueue(key: { readonly userId: number; readonly kind: string }, compose: () => Promise<MailMessage | null>): boolean;
  /** Resolves when nothing is queued or being sent (tests and shutdown). */
  idle(): Promise<void>;
  /** Stops retry timers; waits at most budgetMs for a send in progress. */
  close(budgetMs?: number): Promise<void>;
}

interface Pending {
  /** The throttle's key: user and kind. */
  readonly key: string;
  readonly kind: string;
  readonly compose: () => Promise<MailMessage | null>;
  message: MailMessage | null;
  attempt: number;
}

export function createNotifyQueue(options: NotifyQueueOptions): NotifyQueue {
  const { mailer, clock, log } = options;
  const capacity = options.capacity ?? 1000;
  const retryDelaysMs = options.retryDelaysMs ?? [5_000, 30_000, 120_000, 600_000];
  const throttleMs = options.throttleMs ?? 5 * 60_000;
  // When each (userId, kind) was last mailed. Keys are set only when absent, so insertion order is time order
  // and the expired ones are at the front.
  const lastQueued = new Map<string, number>();
  const throttled = (key: string): boolean => {
    const now = clock.now();
    for (const [old, at] of lastQueued) {
      if (now - at < throttleMs) break;
      lastQueued.delete(old);
    }
    return lastQueued.has(key);
  };
  const retrying = new Map<NodeJS.Timeout, Pending>();
  const idleWaiters: (() => void)[] = [];
  // Each attempt is chained to the previous one: one send at a time, never a burst of SMTP connections.
  let chain = Promise.resolve();
  let held = 0;
  let sending = false;
  let closed = false;
  let fullLoggedAt = -Infinity;
  let fullDropped = 0;

  const report = (outcome: NotifyOutcome, kind: string): void => {
    try {
      options.onOutcome?.(outcome, kind);
    } catch {
      // A metrics callback must not break delivery, nor make enqueue throw.
    }
  };
  const refuse = (outcome: NotifyOutcome, kind: string): false => (report(outcome, kind), false);
  const release = (outcome: NotifyOutcome | null, kind: string): void => {
    if (outcome !== null) report(outcome, kind);
    if (--held === 0) for (const resolve of idleWaiters.splice(0)) resolve();
  };
  // After close(), what is still chained is dropped at its turn, at once.
  const schedule = (mail: Pending): void => {
    chain = chain.then(() => (closed ? release('dropped', mail.kind) : attempt(mail)));
  };

  async function attempt(mail: Pending): Promise<void> {
    let failure: string;
    sending = true;
    try {
      // Kept once composed: a retry sends what the event described and reads nothing again.
      if (mail.message === null) {
        const message = await mail.compose();
        if (message === null) return release(null, mail.kind);
        // The window starts with a mail that is to be sent: an event that composes none (a login from a known
        // device) does not hold back the next one.
        if (throttled(mail.key)) return release('throttled', mail.kind);
        lastQueued.set(mail.key, clock.now());
        mail.message = message;
      }
      const result = await mailer.send(mail.message);
      if (result.ok) return release('sent', mail.kind);
      failure = result.failure;
    } catch {
      // The error may quote a row of the database; its class is enough for the operator.
      failure = 'compose_failed';
    } finally {
      sending = false;
    }
    // Never the address: the kind and the failure's class say what the operator can act on.
    log.warn('security mail not sent', { kind: mail.kind, failure, attempt: mail.attempt });
    report('failed', mail.kind);
    const delay = retryDelaysMs[mail.attempt - 1];
    if (delay === undefined || closed) {
      log.warn('security mail dropped', { kind: mail.kind, reason: closed ? 'shutdown' : 'attempts_exhausted' });
      return release('dropped', mail.kind);
    }
    mail.attempt++;
    const timer = setTimeout(() => {
      retrying.delete(timer);
      schedule(mail);
    }, delay);
    // A mail waiting for its retry never keeps the process alive.
    timer.unref();
    retrying.set(timer, mail);
  }

  return {
    enqueue({ userId, kind }, compose) {
      const now = clock.now();
      const key = `${userId} ${kind}`;
      if (throttled(key)) return refuse('throttled', kind);
      if (closed) return refuse('dropped', kind);
      if (held >= capacity) {
        fullDropped++;
        // One line a minute at most: a flood of events must not become a flood of log lines.
        if (now - fullLoggedAt >= 60_000) {
          log.warn('security mail dropped', { kind, reason: 'queue_full', capacity, dropped: fullDropped });
          [fullLoggedAt, fullDropped] = [now, 0];
        }
        return refuse('dropped', kind);
      }
      held++;
      // then() runs the attempt on a later microtask: compose() never runs inside the caller's enqueue().
      schedule({ key, kind, compose, message: null, attempt: 1 });
      return true;
    },
    idle() {
      return held === 0 ? Promise.resolve() : new Promise((resolve) => idleWaiters.push(resolve));
    },
    async close(budgetMs = 5_000) {
      closed = true;
      const waiting = held - (sending ? 1 : 0);
      if (waiting > 0) log.warn('security mails dropped at shutdown', { count: waiting });
      for (const [timer, mail] of retrying) {
        clearTimeout(timer);
        release('dropped', mail.kind);
      }
      retrying.clear();
      // The budget's timer is unref()ed: it never delays the exit it bounds.
      await Promise.race([chain, sleep(budgetMs, undefined, { ref: false })]);
    },
  };
}
