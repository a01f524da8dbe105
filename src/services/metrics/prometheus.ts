/**
 * The metrics of one process on prom-client (loaded by the composition root only when `metrics` is 1).
 * Each process has its own registry; with workers the primary sums them (cluster.ts).
 *
 * The hot path is one counter increment and one histogram observation per request: a label lookup
 * each, well under a microsecond next to the Fernet work of the same request.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { COUNTED_EVENTS, REFUSAL_REASONS } from './port.js';
import { PURGED_TABLES } from '../../domain/purge.js';
import type { PurgeObserver } from '../../domain/purge.js';
import type { ServiceMetrics } from './port.js';

/** What the process reads at scrape time. */
export interface MetricSources {
  /** The password-hash queue of this process. */
  readonly hashes?: { readonly running: number; readonly waiting: number };
  /** Whether Redis answers; absent when no Redis is configured (the gauge is then not exported). */
  readonly redisUp?: () => boolean;
}

/** From 1 ms (a cached read) to 10 s (a login behind the hash queue and the back-off). */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The purge's metrics: registered by every process, counted by the one that purges (a single process or the primary). */
function purgeMetrics(registry: Registry): PurgeObserver {
  const purges = new Counter({
    name: 'authsvc_purges_total',
    help: 'Purges of expired rows by result: ran, skipped (another instance was purging) or failed.',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const rows = new Counter({
    name: 'authsvc_purged_rows_total',
    help: 'Expired rows the purge deleted, by table.',
    labelNames: ['table'] as const,
    registers: [registry],
  });
  const lastSeconds = new Gauge({
    name: 'authsvc_purge_last_duration_seconds',
    help: 'How long the last purge that ran took, in seconds.',
    registers: [registry],
  });
  for (const result of ['ran', 'skipped', 'failed'] as const) purges.inc({ result }, 0);
  for (const table of PURGED_TABLES) rows.inc({ table }, 0);
  return {
    purge(result, deleted, seconds) {
      purges.inc({ result });
      if (result !== 'ran') return;
      lastSeconds.set(seconds);
      for (const table of PURGED_TABLES) rows.inc({ table }, deleted[table] ?? 0);
    },
  };
}

/** The metrics every process registers (the primary too, so the sums line up by name). */
function sharedMetrics(registry: Registry): { policyReloads: Counter<'result'>; purges: PurgeObserver } {
  collectDefaultMetrics({ register: registry });
  const policyReloads = new Counter({
    name: 'authsvc_policy_reloads_total',
    help: 'Policy reloads (SIGHUP) by result: ok (the new policy is in force) or refused (the old one stays).',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  policyReloads.inc({ result: 'ok' }, 0);
  policyReloads.inc({ result: 'refused' }, 0);
  return { policyReloads, purges: purgeMetrics(registry) };
}

function countPolicyReload(policyReloads: Counter<'result'>, event: string): void {
  if (event === 'policy.reloaded') policyReloads.inc({ result: 'ok' });
  else if (event === 'policy.reload-refused') policyReloads.inc({ result: 'refused' });
}

const scrapeOf = async (registry: Registry): Promise<{ contentType: string; text: string }> => ({
  contentType: registry.contentType,
  text: await registry.metrics(),
});

export function createServiceMetrics(sources: MetricSources = {}): ServiceMetrics & { readonly registry: Registry } {
  const registry = new Registry();
  const registers = [registry];
  const { policyReloads, purges } = sharedMetrics(registry);
  const requests = new Counter({
    name: 'authsvc_requests_total',
    help: 'Requests whose token opened, by action (unknown for a name the server does not know) and outcome: success, the failure code, invalid, rate-limited, unavailable or error.',
    labelNames: ['action', 'outcome'] as const,
    registers,
  });
  const latency = new Histogram({
    name: 'authsvc_request_duration_seconds',
    help: 'Time from receiving a request whose token opened to its answer, by action.',
    labelNames: ['action'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const refused = new Counter({
    name: 'authsvc_transport_refused_total',
    help: 'Messages refused before any action ran, by reason: undecryptable, expired, replayed, host, size, incomplete.',
    labelNames: ['reason'] as const,
    registers,
  });
  for (const reason of REFUSAL_REASONS) refused.inc({ reason }, 0);
  const lockouts = new Counter({
    name: 'authsvc_lockouts_total',
    help: 'Accounts locked out after too many failed password checks.',
    registers,
  });
  const databaseErrors = new Counter({
    name: 'authsvc_database_errors_total',
    help: 'Requests answered 503 because the database did not answer (db_unavailable).',
    registers,
  });
  const databaseOutages = new Counter({
    name: 'authsvc_database_outages_total',
    help: 'Times the database stopped answering the store calls of a process.',
    registers,
  });
  let databaseIsUp = true;
  new Gauge({
    name: 'authsvc_database_up',
    help: '1 while the database answers the store calls (over workers: the lowest, so 0 if any worker finds it down).',
    aggregator: 'min',
    registers,
    collect() {
      this.set(databaseIsUp ? 1 : 0);
    },
  });
  const redisFallbacks = new Counter({
    name: 'authsvc_redis_fallbacks_total',
    help: 'Times Redis stopped answering and admission fell back to its own store (memory, or the cluster primary).',
    registers,
  });
  const securityMails = new Counter({
    name: 'authsvc_security_mails_total',
    help: 'Security mails (notify) by outcome: sent, failed (an attempt; it is retried), dropped, throttled.',
    labelNames: ['outcome'] as const,
    registers,
  });
  const { redisUp, hashes } = sources;
  if (redisUp !== undefined) {
    new Gauge({
      name: 'authsvc_redis_up',
      help: '1 while admission runs on Redis, 0 while on the fallback (over workers: the lowest).',
      aggregator: 'min',
      registers,
      collect() {
        this.set(redisUp() ? 1 : 0);
      },
    });
  }
  if (hashes !== undefined) {
    new Gauge({
      name: 'authsvc_password_hashes_running',
      help: 'Password hashes (and verifications) running now.',
      registers,
      collect() {
        this.set(hashes.running);
      },
    });
    new Gauge({
      name: 'authsvc_password_hashes_waiting',
      help: 'Password hashes waiting for a slot in the bounded hash queue.',
      registers,
      collect() {
        this.set(hashes.waiting);
      },
    });
  }

  return {
    registry,
    request(action, outcome, seconds) {
      requests.inc({ action, outcome });
      latency.observe({ action }, seconds);
      if (outcome === 'db_unavailable') databaseErrors.inc();
    },
    refused(reason) {
      refused.inc({ reason });
    },
    audited(event) {
      if (!(COUNTED_EVENTS as readonly string[]).includes(event)) return;
      if (event === 'account.locked-out') lockouts.inc();
      else countPolicyReload(policyReloads, event);
    },
    databaseAvailability(up) {
      if (!up && databaseIsUp) databaseOutages.inc();
      databaseIsUp = up;
    },
    redisFallback() {
      redisFallbacks.inc();
    },
    securityMail(outcome) {
      securityMails.inc({ outcome });
    },
    purge: (result, deleted, seconds) => purges.purge(result, deleted, seconds),
    scrape: () => scrapeOf(registry),
    figures: () => registry.getMetricsAsJSON(),
  };
}

/** The cluster primary's own registry: its process metrics and the policy reloads it decides. */
export function createPrimaryMetrics(): PurgeObserver & { readonly registry: Registry; audited(event: string): void } {
  const registry = new Registry();
  const { policyReloads, purges } = sharedMetrics(registry);
  return {
    registry,
    audited: (event) => countPolicyReload(policyReloads, event),
    purge: (result, deleted, seconds) => purges.purge(result, deleted, seconds),
  };
}
