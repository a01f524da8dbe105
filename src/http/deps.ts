import type { Dispatcher } from '../actions/dispatch.js';
import type { AdmissionStore, RatePolicy } from '../services/admission/index.js';
import type { AuditSink } from '../log/audit.js';
import type { Clock, Random } from '../domain/ports.js';
import type { Logger, Pii } from '../log/logger.js';
import type { Keyring } from '../protocol/index.js';
import type { HealthSources } from './health.js';
import type { HttpMetrics } from './metrics.js';

/** What the transport needs; built in src/app.ts. */
export interface HttpDeps {
  readonly keyring: Keyring;
  /** Enables /echo (from the loopback address only). */
  readonly debugmode: boolean;
  readonly allowedHosts: ReadonlySet<string>;
  readonly maxBodySize: number;
  readonly messageTtlSeconds: number;
  readonly clock: Clock;
  readonly random: Random;
  readonly dispatcher: Dispatcher;
  /** Replay refusal, rate limits and login back-off (memory, the cluster primary, or Redis with a fallback). */
  readonly admission: AdmissionStore;
  /** null: rate limiting off, and `client_ipaddr` optional. */
  readonly rateLimits: RatePolicy | null;
  readonly audit: AuditSink;
  readonly log: Logger;
  readonly pii: Pii;
  readonly health: HealthSources;
  /** null: metrics off (no /metrics, nothing counted). */
  readonly metrics: HttpMetrics | null;
}
