/** The admission part's public face, for the http `admit` step, config and the cluster wiring. */
export type { AdmissionRequest, Bucket } from './buckets.js';
export { backoffKey, bucketsFor, ipBucket, ipKey, retryAfterSeconds } from './buckets.js';
export type { MemoryAdmissionStore, MemoryStoreOptions, ReplayCache } from './memory-store.js';
export { memoryAdmissionStore, memoryReplayCache, replayKey } from './memory-store.js';
export { primaryAdmissionClient } from './primary-client.js';
export type { Channel } from './primary-messages.js';
export { serveAdmission } from './primary-server.js';
export type { RateLimitsParse, RatePolicy } from './rate-limits.js';
export { DEFAULT_RATE_POLICY, parseRateLimits, STRICT_ACTION_LIMITS } from './rate-limits.js';
// redisAdmissionStore is imported from './redis-store.js' only where `redisurl` is set, so that a
// process without Redis never loads ioredis (about 10 MB and 40 modules).
export type { RedisAdmissionStore, RedisStoreOptions } from './redis-store.js';
export { ReportGate } from './report-gate.js';
export type { Admission, AdmissionStatus, AdmissionStore, FallbackStore, RemoteStore, ReplayEntry } from './store.js';
export { backoffWaitMs, fallbackStore, storeLoginBackoff } from './store.js';
