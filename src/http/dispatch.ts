/**
 * Runs the action (registry, input validation, handler) and leaves its reply for the seal. Handlers
 * get the body and the request's meta, never the Koa context.
 */
import type { Dispatcher } from '../actions/dispatch.js';
import type { Pii } from '../log/logger.js';
import { earlier } from './state.js';
import type { Step } from './state.js';

export interface DispatchDeps {
  readonly dispatcher: Dispatcher;
  readonly pii: Pii;
}

export function dispatch(deps: DispatchDeps): Step {
  const { dispatcher, pii } = deps;
  return async function dispatch(ctx, next) {
    const { action, body, reqid, clientIp } = earlier(ctx.state.request, 'the request');
    const reply = await dispatcher.run(action, body, { reqid, clientIp });
    ctx.state.log = {
      action,
      reqid,
      ip: pii(clientIp),
      success: reply.payload.success,
      ...(reply.code === null ? {} : { failure: reply.code }),
    };
    ctx.state.reply = reply;
    await next();
  };
}
