/**
 * The decrypted request must be `{request, body, reqid, client_ipaddr}` naming a known action
 * (DESIGN decision 3); otherwise 400. From here on the request id is known.
 */
import { checkEnvelope } from '../envelope-check.js';
import { plain } from '../plain.js';
import { earlier } from '../state.js';
import type { Step } from '../state.js';

export function envelope(): Step {
  return function envelope(ctx, next) {
    const checked = checkEnvelope(earlier(ctx.state.opened, 'the opened token').value);
    if (!checked.ok) {
      ctx.state.log = { refused: checked.why, reqid: checked.reqid, action: checked.action };
      plain(ctx, 400);
      return;
    }
    ctx.state.request = checked.request;
    ctx.state.reqid = checked.request.reqid;
    return next();
  };
}
