/**
 * Metrics (only when the `metrics` item is 1): the outermost step counts each request by what the
 * later steps left on `ctx.state` once it is answered, and GET /metrics answers the scrape.
 *
 * Labels come only from closed sets: the action is a protocol name or `unknown`, the outcome a
 * failure code of the catalogue or one of a few words, the refusal reason one of REFUSAL_REASONS.
 */
import type { Middleware } from 'koa';
import type { ActionLabel, Outcome, RefusalReason, RequestMetrics, Scrape } from '../services/metrics/port.js';
import { isActionName } from '../protocol/index.js';
import { plain } from './plain.js';
import type { PipelineContext, PipelineState, Step } from './state.js';

/** What the transport needs when metrics are on. */
export interface HttpMetrics {
  readonly observer: RequestMetrics;
  /** Whether a peer address may read /metrics (the `metricsallow` item). */
  readonly allowPeer: (address: string | undefined) => boolean;
  /** The figures to answer (with workers: summed by the primary); null when they could not be had in time. */
  readonly scrape: () => Promise<Scrape | null>;
}

/** The refusals the open and size steps log (`state.log.refused`), by reason. */
const REFUSED: Readonly<Record<string, RefusalReason>> = {
  'host not allowed': 'host',
  'body too large': 'size',
  'body not received': 'incomplete',
  replayed: 'replayed',
  malformed: 'undecryptable',
  'bad-signature': 'undecryptable',
  'bad-padding': 'undecryptable',
  expired: 'expired',
  future: 'expired',
};

type Counted = { readonly refused: RefusalReason } | { readonly action: ActionLabel; readonly outcome: Outcome };

/** How a request ended, from what the steps left on the state; null for what is not counted (other paths). */
function countedOf(ctx: PipelineContext): Counted | null {
  const { state } = ctx;
  const refused = state.log?.refused;
  const reason = typeof refused === 'string' ? REFUSED[refused] : undefined;
  if (reason === 'host') return { refused: reason };
  if (ctx.path !== '/' || ctx.method !== 'POST') return null;
  if (reason !== undefined) return { refused: reason };
  const logged = state.log?.action;
  const action = state.request?.action ?? (typeof logged === 'string' && isActionName(logged) ? logged : 'unknown');
  if (ctx.status === 429) return { action, outcome: 'rate-limited' };
  if (state.reply !== undefined) return { action, outcome: state.reply.code ?? 'success' };
  if (ctx.status === 500) return { action, outcome: 'error' };
  if (ctx.status === 503) return { action, outcome: 'unavailable' };
  // Opened but malformed (a 400 from the envelope or a plaintext that is not JSON).
  return { action, outcome: 'invalid' };
}

export function countRequests(observer: RequestMetrics): Step {
  return async function countRequests(ctx, next) {
    const started = performance.now();
    await next();
    const counted = countedOf(ctx);
    if (counted === null) return;
    if ('refused' in counted) observer.refused(counted.refused);
    else observer.request(counted.action, counted.outcome, (performance.now() - started) / 1000);
  };
}

export function scrapeMetrics(scrape: HttpMetrics['scrape']): Middleware<PipelineState> {
  return async function scrapeMetrics(ctx) {
    const figures = await scrape();
    if (figures === null) {
      plain(ctx, 503);
      return;
    }
    ctx.status = 200;
    ctx.type = figures.contentType;
    ctx.body = figures.text;
  };
}
