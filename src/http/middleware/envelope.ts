/**
 * The decrypted request must be `{request, body, reqid, client_ipaddr}` naming a known action
 * (docs/design.md#http-status-codes); `client_ipaddr` only while rate limiting is on. From here on the request id is
 * known. A malformed envelope is answered 400 by the admit step, after it has counted it against the
 * client's per-IP bucket: flooding with bad requests is still flooding.
 */
import { checkEnvelope } from '../../protocol/index.js';
import { earlier } from '../state.js';
import type { Step } from '../state.js';

export function envelope(options: { readonly ipRequired: boolean }): Step {
  return function envelope(ctx, next) {
    const checked = checkEnvelope(earlier(ctx.state.opened, 'the opened token').value, options.ipRequired);
    if (!checked.ok) {
      ctx.state.log = { refused: checked.why, reqid: checked.reqid, action: checked.action };
      ctx.state.malformed = checked.clientIp === undefined ? {} : { clientIp: checked.clientIp };
      if (checked.reqid !== undefined) ctx.state.reqid = checked.reqid;
      return next();
    }
    ctx.state.request = checked.request;
    ctx.state.reqid = checked.request.reqid;
    return next();
  };
}
