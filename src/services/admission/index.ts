/** The admission part's public face, for the http `admit` step, config and the cluster wiring. */
export type { AdmissionRequest } from './buckets.js';
export { backoffKey, bucketsFor, ipBucket, ipKey } from './buckets.js';
export type { FallbackStore, RemoteStore } from './fallback.js';
export { fallbackStore } from './fallback.js';
export type { Bucket } from './gcra.js';
export { retryAfterSeconds } from './gcra.js';
export type { MemoryAdmissionStore, MemoryStoreOptions } from './memory-store.js';
export { memoryAdmissionStore } from './memory-store.js';
export { primaryAdmissionClient } from './primary-client.js';
export type { Channel } from './primary-messages.js';
export { serveAdmission } from './primary-server.js';
export type { RateLimitsParse, RatePolicy } from './rate-limits.js';
export { DEFAULT_RATE_POLICY, parseRateLimits, STRICT_ACTION_LIMITS } from './rate-limits.js';
// redisAdmissionStore is imported from './redis-store.js' only where `redisurl` is set, so that a
// process without Redis never loads ioredis (about 10 MB and 40 modules).
export type { RedisAdmissionStore, RedisStoreOptions } from './redis-store.js';
export type { ReplayCache } from './replay.js';
export { memoryReplayCache, replayKey } from './replay.js';
export { ReportGate } from './report-gate.js';
export type { Admission, AdmissionStatus, AdmissionStore, ReplayEntry } from './store.js';
export { backoffWaitMs, storeLoginBackoff } from './store.js';
