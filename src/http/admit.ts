/**
 * Admission (docs/design.md#freshness-and-replay, docs/design.md#gcra-buckets): one store call per request checks the
 * replay cache and every rate bucket, all or nothing. A replayed state-changing token is refused 401 and consumes no
 * rate; a rate-limited request is refused 429 with `Retry-After` and is not recorded for replay, so the client
 * may send the same token again once it may. A state-changing request whose replay cannot be checked
 * (Redis down) is refused 503 with `Retry-After`. A malformed envelope counts against its per-IP bucket,
 * then gets its 400.
 */
import { bucketsFor, ipBucket, replayKey, ReportGate, retryAfterSeconds } from '../services/admission/index.js';
import type { Admission, AdmissionStore, Bucket, RatePolicy, ReplayEntry } from '../services/admission/index.js';
import type { Next } from 'koa';
import type { AuditSink } from '../log/audit.js';
import type { Logger, Pii } from '../log/logger.js';
import { actionSpecs } from '../protocol/index.js';
import { plain } from './plain.js';
import { earlier } from './state.js';
import type { PipelineContext, Step } from './state.js';

export interface AdmitDeps {
  readonly admission: AdmissionStore;
  /** null: rate limiting off (replay refusal stays on). */
  readonly rateLimits: RatePolicy | null;
  readonly messageTtlSeconds: number;
  readonly log: Logger;
  readonly audit: AuditSink;
  readonly pii: Pii;
}

type Limited = Extract<Admission, { kind: 'rate-limited' }>;

/** As the database's 503s: the store is probed every second. */
const UNAVAILABLE_RETRY_AFTER_S = 1;

/** The bucket's kind (ip, g:user, a:user-login, e:…) without its hashed identity: safe to log. */
const bucketKind = (bucket: Bucket): string => bucket.key.slice(0, bucket.key.lastIndexOf(':'));

export function admit(deps: AdmitDeps): Step {
  const { admission, rateLimits, messageTtlSeconds, log, audit, pii } = deps;
  // One log line and one audit event per (bucket, minute) at most: a flood of 429s is not a flood of logs.
  const reports = new ReportGate();

  function refuse(ctx: PipelineContext, limited: Limited, clientIp: string, nowMs: number): void {
    const retryAfter = retryAfterSeconds(limited.retryAfterMs);
    const action = ctx.state.request?.action;
    const reqid = ctx.state.reqid ?? '';
    const bucket = bucketKind(limited.bucket);
    if (reports.shouldReport(limited.bucket.key, nowMs)) {
      log.warn('rate limited', { reqid, action, ip: pii(clientIp), bucket, retry_after_s: retryAfter });
      audit.record({
        event: 'ratelimit.hit',
        reqid,
        subject: { ip: clientIp },
        detail: { bucket, ...(action === undefined ? {} : { action }) },
      });
    }
    ctx.state.log = { ...ctx.state.log, refused: 'rate-limited', bucket };
    plain(ctx, 429);
    ctx.set('Retry-After', String(retryAfter));
  }

  /** The store's answer, or null when it failed (a cluster primary that did not answer in time): 503. */
  async function ask(...args: Parameters<AdmissionStore['admit']>): Promise<Admission | null> {
    try {
      return await admission.admit(...args);
    } catch (error) {
      log.error('admission store failed', { error: error instanceof Error ? error.message : String(error) });
      return null;
    }
  }

  /** A malformed envelope: counted against its per-IP bucket when it names an IP, then 400. */
  async function malformed(ctx: PipelineContext, clientIp: string | undefined, nowMs: number): Promise<void> {
    if (clientIp !== undefined && rateLimits !== null) {
      const result = await ask([ipBucket(rateLimits, clientIp)], undefined, nowMs);
      if (result?.kind === 'rate-limited') return refuse(ctx, result, clientIp, nowMs);
    }
    plain(ctx, 400);
  }

  async function admitted(ctx: PipelineContext, next: Next, buckets: Bucket[], replay?: ReplayEntry): Promise<void> {
    const nowMs = earlier(ctx.state.receivedAtMs, 'the time received');
    const { action, reqid, clientIp } = earlier(ctx.state.request, 'the request');
    const result = await ask(buckets, replay, nowMs);
    if (result === null || result.kind === 'unavailable') {
      // 'unavailable': Redis does not answer, so replay cannot be checked
      // (docs/design.md#replay-during-a-redis-outage).
      ctx.state.log = { refused: result === null ? 'admission unavailable' : 'replay unavailable', reqid, action };
      plain(ctx, 503);
      ctx.set('Retry-After', String(UNAVAILABLE_RETRY_AFTER_S));
      return;
    }
    if (result.kind === 'ok') {
      await next();
      return;
    }
    if (result.kind === 'rate-limited') return refuse(ctx, result, clientIp, nowMs);
    ctx.state.log = { refused: 'replayed', reqid, action };
    plain(ctx, 401);
  }

  // Not async itself: a request with nothing to ask the store (limits off, an action that changes
  // nothing) goes straight on, without a frame of its own.
  return function admit(ctx, next) {
    if (ctx.state.malformed !== undefined) {
      return malformed(ctx, ctx.state.malformed.clientIp, earlier(ctx.state.receivedAtMs, 'the time received'));
    }
    const { action, body, clientIp } = earlier(ctx.state.request, 'the request');
    const spec = actionSpecs[action];
    const buckets = rateLimits === null ? [] : bucketsFor(rateLimits, { action, rateClass: spec.rate, body, clientIp });
    const replay = spec.changesState ? replayEntry(ctx, messageTtlSeconds) : undefined;
    if (buckets.length === 0 && replay === undefined) return next();
    return admitted(ctx, next, buckets, replay);
  };
}

/** The token's entry lives until it could no longer pass the freshness check anyway. */
function replayEntry(ctx: PipelineContext, messageTtlSeconds: number): ReplayEntry {
  const { timestamp, mac } = earlier(ctx.state.opened, 'the opened token');
  return { key: replayKey(mac), expiresAtMs: (timestamp + messageTtlSeconds + 1) * 1000 };
}
