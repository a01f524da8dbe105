/**
 * Admission: a state-changing request is refused (401) when its token was seen before (replay). Its
 * entry lives until the token could no longer pass the freshness check anyway. Rate limits slot in here.
 */
import type { ReplayCache } from '../../admission/replay.js';
import { actionSpecs } from '../../protocol/index.js';
import { plain } from '../plain.js';
import { earlier } from '../state.js';
import type { Step } from '../state.js';

export interface AdmitDeps {
  readonly replay: ReplayCache;
  readonly messageTtlSeconds: number;
}

export function admit(deps: AdmitDeps): Step {
  const { replay, messageTtlSeconds } = deps;
  return function admit(ctx, next) {
    const { action, reqid } = earlier(ctx.state.request, 'the request');
    if (!actionSpecs[action].changesState) return next();
    const { timestamp, mac } = earlier(ctx.state.opened, 'the opened token');
    const expiresAtMs = (timestamp + messageTtlSeconds + 1) * 1000;
    if (replay.admit(mac, expiresAtMs, earlier(ctx.state.receivedAtMs, 'the time received'))) return next();
    ctx.state.log = { refused: 'replayed', reqid, action };
    plain(ctx, 401);
  };
}
