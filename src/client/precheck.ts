/**
 * The envelope checks the server answers with a bare 400 (its reason only in the server log), done
 * before sending so the frontend learns the reason. The body's items are left to the server, which
 * answers `invalid_params` with each problem named.
 */
import { isIP } from 'node:net';
import { isActionName, REQID_MAX_LENGTH } from '../protocol/index.js';
import type { RequestId } from '../protocol/index.js';
import { AuthsvcError } from './errors.js';
import type { InvalidRequestReason } from './errors.js';

// The server's text rule: no NUL, no lone surrogate.
const BAD_TEXT = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function refuse(reason: InvalidRequestReason, message: string): AuthsvcError {
  return new AuthsvcError('invalid-request', `authsvc client: ${message} (not sent)`, undefined, undefined, reason);
}

/** A value for the message: a text quoted and cut short, anything else by its type. */
function shown(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value.slice(0, 80)) : typeof value;
}

function isRequestId(value: unknown): value is RequestId {
  if (typeof value === 'number') return Number.isSafeInteger(value);
  return typeof value === 'string' && value.length <= REQID_MAX_LENGTH && !BAD_TEXT.test(value);
}

/** Throws an `invalid-request` AuthsvcError naming the first problem, if any. */
export function precheck(action: unknown, body: unknown, clientIp: unknown, reqid: unknown): void {
  if (typeof action !== 'string' || !isActionName(action)) {
    throw refuse('unknown-action', `${shown(action)} is not an authsvc action`);
  }
  if (typeof clientIp !== 'string' || clientIp.includes('%') || isIP(clientIp) === 0) {
    throw refuse(
      'invalid-client-ip',
      clientIp === undefined || clientIp === ''
        ? "clientIp is missing: pass the end user's IP address ({ clientIp })"
        : `clientIp ${shown(clientIp)} is not an IPv4 or IPv6 address (without a zone)`,
    );
  }
  if (!isRequestId(reqid)) {
    throw refuse('invalid-reqid', `reqid must be a safe integer or a text of at most ${REQID_MAX_LENGTH} characters`);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw refuse('body-not-object', 'body must be an object of the action items');
  }
}
