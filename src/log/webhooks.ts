/**
 * Audit events POSTed to an operator's URL, signed as Standard Webhooks specifies
 * (https://www.standardwebhooks.com): `webhook-id` (one per event, the same on every retry),
 * `webhook-timestamp` (unix seconds of the attempt) and `webhook-signature` =
 * `v1,` + base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)).
 *
 * A request never waits for the receiver: recording an event only appends it to an in-memory queue,
 * and a few senders drain it in the background. Everything held (queued, in flight, waiting for a
 * retry) is bounded: when the bound is reached new events are dropped, and an event is dropped after
 * its last attempt, so a slow or dead receiver costs neither latency nor unbounded memory. Drops are
 * counted and logged at most once per window. The queue lives in this process's memory: a restart, a
 * crash or a shutdown that outlasts its flush budget loses what it held.
 */
import { createHmac } from 'node:crypto';
import type { Clock, Random } from '../domain/ports.js';
import type { Logger } from './logger.js';
import type { AuditOutlet, AuditRecord } from './audit.js';

export interface WebhookTarget {
  readonly url: string;
  /** The decoded `whsec_` secret. */
  readonly key: Buffer;
}

export interface WebhookTuning {
  /** Events held at most (queued, in flight and waiting to be retried). */
  readonly queueLimit: number;
  /** Attempts per event, the first included. */
  readonly attempts: number;
  /** One attempt's limit, connection to response. */
  readonly timeoutMs: number;
  /** Requests in flight at most. */
  readonly concurrency: number;
  /** Wait before the second attempt; it doubles for each next one (with jitter), up to backoffCapMs. */
  readonly backoffBaseMs: number;
  readonly backoffCapMs: number;
  /** At most one log line about drops (and one about failing deliveries) per window. */
  readonly logWindowMs: number;
  /** How long close() keeps sending what is left. */
  readonly flushMs: number;
}

export const DEFAULT_WEBHOOK_TUNING: WebhookTuning = {
  queueLimit: 10_000,
  attempts: 5,
  timeoutMs: 5_000,
  concurrency: 4,
  backoffBaseMs: 1_000,
  backoffCapMs: 60_000,
  logWindowMs: 60_000,
  flushMs: 5_000,
};

export type DropReason = 'queue_full' | 'attempts_exhausted' | 'shutdown';

export interface WebhookStats {
  readonly delivered: number;
  /** Attempts that failed (an answer other than 2xx, a timeout, a refused connection). */
  readonly failedAttempts: number;
  readonly dropped: Readonly<Record<DropReason, number>>;
  /** Events held now. */
  readonly pending: number;
}

export interface WebhookSender {
  readonly outlet: AuditOutlet;
  stats(): WebhookStats;
  /** Sends what is held for at most `flushMs` (retries at once, no back-off), then drops the rest. */
  close(): Promise<void>;
}

export interface WebhookDeps {
  readonly target: WebhookTarget;
  readonly clock: Clock;
  readonly random: Random;
  readonly log: Logger;
  readonly tuning?: Partial<WebhookTuning>;
}

const SECRET_PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The Standard Webhooks secret form: `whsec_` + base64 of 24 to 64 random bytes. The key is the
 * decoded bytes, not the text: receivers' libraries decode it the same way.
 */
export function parseWebhookSecret(text: string): { ok: true; key: Buffer } | { ok: false; problem: string } {
  const trimmed = text.trim();
  if (!trimmed.startsWith(SECRET_PREFIX)) return { ok: false, problem: 'must start with "whsec_"' };
  const encoded = trimmed.slice(SECRET_PREFIX.length);
  if (encoded.length % 4 !== 0 || !BASE64.test(encoded))
    return { ok: false, problem: 'must be "whsec_" followed by standard base64' };
  const key = Buffer.from(encoded, 'base64');
  if (key.length < 24 || key.length > 64)
    return { ok: false, problem: `must decode to 24 to 64 bytes, not ${key.length}` };
  return { ok: true, key };
}

/** `v1,` + base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)). */
export function webhookSignature(key: Buffer, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

interface Message {
  readonly id: string;
  readonly body: string;
  attempts: number;
}

/** A float in [0, 1) from the injected randomness. */
const fraction = (random: Random): number => random.bytes(4).readUInt32BE(0) / 2 ** 32;

export function createWebhookSender(deps: WebhookDeps): WebhookSender {
  const { target, clock, random, log } = deps;
  const tuning: WebhookTuning = { ...DEFAULT_WEBHOOK_TUNING, ...deps.tuning };
  const queue: Message[] = [];
  const retrying = new Map<NodeJS.Timeout, Message>();
  const inFlight = new Set<Promise<void>>();
  let closing = false;
  const abort = new AbortController();
  let delivered = 0;
  let failedAttempts = 0;
  const dropped: Record<DropReason, number> = { queue_full: 0, attempts_exhausted: 0, shutdown: 0 };
  const unreported: Record<DropReason, number> = { queue_full: 0, attempts_exhausted: 0, shutdown: 0 };
  let lastDropLog = -Infinity;
  let lastFailureLog = -Infinity;
  let idle: (() => void) | null = null;

  const held = (): number => queue.length + retrying.size + inFlight.size;

  function drop(reason: DropReason, count = 1): void {
    dropped[reason] += count;
    unreported[reason] += count;
    const now = clock.now();
    if (now - lastDropLog < tuning.logWindowMs && reason !== 'shutdown') return;
    lastDropLog = now;
    log.warn('webhook events dropped', {
      ...unreported,
      total_dropped: total(dropped),
      window_s: tuning.logWindowMs / 1000,
    });
    for (const key of Object.keys(unreported) as DropReason[]) unreported[key] = 0;
  }

  function failed(message: Message, why: string): void {
    failedAttempts += 1;
    // Cut short by the end of the flush: close() counted it among the events left.
    if (abort.signal.aborted) return;
    const now = clock.now();
    if (now - lastFailureLog >= tuning.logWindowMs) {
      lastFailureLog = now;
      log.warn('webhook delivery failing', { why, attempt: message.attempts, pending: held() });
    }
    if (message.attempts >= tuning.attempts) return drop('attempts_exhausted');
    if (closing) {
      queue.push(message);
      return;
    }
    const exp = Math.min(tuning.backoffCapMs, tuning.backoffBaseMs * 2 ** (message.attempts - 1));
    // Half fixed, half random: receivers coming back up are not hit by every sender at once.
    const delay = exp / 2 + fraction(random) * (exp / 2);
    const timer = setTimeout(() => {
      retrying.delete(timer);
      queue.push(message);
      pump();
    }, delay);
    timer.unref();
    retrying.set(timer, message);
  }

  async function attempt(message: Message): Promise<void> {
    message.attempts += 1;
    const timestamp = Math.floor(clock.now() / 1000);
    try {
      const response = await fetch(target.url, {
        method: 'POST',
        body: message.body,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'authsvc-webhooks',
          'webhook-id': message.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': webhookSignature(target.key, message.id, timestamp, message.body),
        },
        redirect: 'manual',
        signal: AbortSignal.any([AbortSignal.timeout(tuning.timeoutMs), abort.signal]),
      });
      // The answer's body is not used: discarded unread, so a large one costs no memory.
      await response.body?.cancel().catch(() => undefined);
      if (response.status >= 200 && response.status < 300) delivered += 1;
      else failed(message, `HTTP ${response.status}`);
    } catch (error) {
      failed(
        message,
        error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.name) : 'error',
      );
    }
  }

  function pump(): void {
    while (inFlight.size < tuning.concurrency && queue.length > 0) {
      const message = queue.shift() as Message;
      const sending: Promise<void> = attempt(message).finally(() => {
        inFlight.delete(sending);
        pump();
        if (held() === 0 && idle !== null) idle();
      });
      inFlight.add(sending);
    }
  }

  return {
    outlet(record: AuditRecord) {
      if (closing || held() >= tuning.queueLimit) return drop(closing ? 'shutdown' : 'queue_full');
      queue.push({ id: `msg_${random.bytes(16).toString('base64url')}`, body: JSON.stringify(record), attempts: 0 });
      pump();
    },
    stats: () => ({ delivered, failedAttempts, dropped: { ...dropped }, pending: held() }),
    async close() {
      if (closing) return;
      closing = true;
      // What waits for a retry is tried once more now: the flush has no time for back-off.
      for (const [timer, message] of retrying) {
        clearTimeout(timer);
        queue.push(message);
      }
      retrying.clear();
      pump();
      if (held() === 0) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => (idle = resolve)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, tuning.flushMs))),
      ]);
      clearTimeout(timer);
      const left = queue.length + inFlight.size;
      queue.length = 0;
      abort.abort();
      // Aborted requests settle at once; after this nothing is held.
      await Promise.allSettled([...inFlight]);
      if (left > 0) drop('shutdown', left);
    },
  };
}

const total = (counts: Readonly<Record<DropReason, number>>): number =>
  counts.queue_full + counts.attempts_exhausted + counts.shutdown;
