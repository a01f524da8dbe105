/**
 * What the rest of the server counts, as a port: the transport and the composition root call these,
 * and only src/services/metrics/prometheus.ts knows prom-client (loaded only when `metrics` is 1, so with
 * metrics off nothing is registered, counted or even loaded).
 *
 * Every label value is from a closed set written here or in the protocol: a client can never create
 * a series (an unknown action counts as `unknown`, a failure only by its catalogue code).
 */
import type { PurgeObserver } from '../../domain/purge.js';
import type { ActionName, FailureCode } from '../../protocol/index.js';

/** An action of the protocol, or `unknown` for a name the server does not know (never the client's text). */
export type ActionLabel = ActionName | 'unknown';

/**
 * How an opened request ended: `success`, its failure code, `invalid` (a malformed envelope or a
 * plaintext that is not JSON), `rate-limited` (429), `unavailable` (the admission store did not
 * answer: 503) or `error` (a bug: 500).
 */
export type Outcome = 'success' | FailureCode | 'invalid' | 'rate-limited' | 'unavailable' | 'error';

/**
 * Why a message was refused before any action ran: a token no key of ours opens (`undecryptable`),
 * one too old or stamped too far ahead (`expired`), one already used (`replayed`), a foreign Host
 * header (`host`, on any path), a body over `maxbodysize` (`size`), a body that never arrived whole
 * (`incomplete`).
 */
export const REFUSAL_REASONS = ['undecryptable', 'expired', 'replayed', 'host', 'size', 'incomplete'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** The audit events (by their catalogue names) that metrics count. */
export const COUNTED_EVENTS = ['account.locked-out', 'policy.reloaded', 'policy.reload-refused'] as const;

/** The hot path's part: one call per request. */
export interface RequestMetrics {
  /** A POST / whose token opened, with how long it took (seconds). */
  request(action: ActionLabel, outcome: Outcome, seconds: number): void;
  refused(reason: RefusalReason): void;
}

export interface Scrape {
  readonly contentType: string;
  readonly text: string;
}

/** The purge of expired rows (docs/design.md#sessions-and-the-purge), counted by the process that runs it. */
/** One process's metrics. */
export interface ServiceMetrics extends RequestMetrics, PurgeObserver {
  /** An audit event was recorded; the few in COUNTED_EVENTS are counted, the rest ignored. */
  audited(event: string): void;
  /** The database stopped (false) or started again (true) answering the store's calls. */
  databaseAvailability(up: boolean): void;
  /** Redis stopped answering: admission falls back to this instance's own store. */
  redisFallback(): void;
  /** A security mail was sent, failed an attempt, was dropped or throttled (docs/design.md#security-mail). */
  securityMail(outcome: 'sent' | 'failed' | 'dropped' | 'throttled'): void;
  /** This process's figures, in the Prometheus text format. */
  scrape(): Promise<Scrape>;
  /** This process's figures as prom-client's JSON, for the cluster primary to sum (cluster.ts). */
  figures(): Promise<readonly object[]>;
}
