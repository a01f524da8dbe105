/** The messages between the cluster primary and its workers (node:cluster IPC). */
import type { Worker } from 'node:cluster';
import type { WorkersReport } from '../http/health-report.js';

/** Worker → primary: listening, at this URL, enforcing the policy of this SHA-256. */
export interface ReadyMessage {
  readonly type: 'authsvc:ready';
  readonly url: string;
  readonly policySha256: string;
}

/**
 * Worker → primary: this worker could not start (the port is taken, the certificate is unusable…).
 * The primary prints `line` once for all its workers (cluster/start-failure.ts); `stack` only with
 * loglevel debug.
 */
export interface StartFailedMessage {
  readonly type: 'authsvc:start-failed';
  readonly line: string;
  readonly stack: string | null;
}

/** Worker → primary, before it reads its configuration: which policy document to enforce? */
export interface PolicyRequestMessage {
  readonly type: 'authsvc:policy-request';
}

/**
 * Primary → worker: the policy document to enforce (base64 of the exact bytes the primary checked),
 * in answer to a request, after a reload, or to a worker that came up with another one.
 */
export interface PolicyMessage {
  readonly type: 'authsvc:policy';
  readonly document: string;
  readonly sha256: string;
}

/** Primary → workers: the table of workers, sent whenever it changes (for /health). */
export interface WorkersMessage {
  readonly type: 'authsvc:workers';
  readonly report: WorkersReport;
}

/** Primary → worker: stop accepting, answer what was received, exit 0. */
export interface ShutdownMessage {
  readonly type: 'authsvc:shutdown';
}

/**
 * Worker → primary, right after the draining worker closed its listener (node:cluster's own `close`
 * message goes first, on the same channel); primary → worker, once no worker takes connections any
 * more: its held answers can go out (http/drain.ts, cluster/primary.ts).
 */
export interface ListenerClosedMessage {
  readonly type: 'authsvc:listener-closed';
}

export type PrimaryMessage = WorkersMessage | ShutdownMessage | PolicyMessage | ListenerClosedMessage;

function typed(message: unknown): string | null {
  return typeof message === 'object' && message !== null && 'type' in message && typeof message.type === 'string'
    ? message.type
    : null;
}

export function isReady(message: unknown): message is ReadyMessage {
  return typed(message) === 'authsvc:ready';
}

export function isStartFailed(message: unknown): message is StartFailedMessage {
  return (
    typed(message) === 'authsvc:start-failed' &&
    typeof (message as { line?: unknown }).line === 'string' &&
    ['string', 'object'].includes(typeof (message as { stack?: unknown }).stack)
  );
}

export function isPolicyRequest(message: unknown): message is PolicyRequestMessage {
  return typed(message) === 'authsvc:policy-request';
}

export function isListenerClosed(message: unknown): message is ListenerClosedMessage {
  return typed(message) === 'authsvc:listener-closed';
}

export function isPrimaryMessage(message: unknown): message is PrimaryMessage {
  const type = typed(message);
  return (
    type === 'authsvc:workers' ||
    type === 'authsvc:shutdown' ||
    type === 'authsvc:policy' ||
    type === 'authsvc:listener-closed'
  );
}

/**
 * Primary → one worker: a PrimaryMessage, or an admission or metrics answer. A worker that has just died
 * still reads as connected until its exit is handled, and the write then fails (EPIPE): given a callback,
 * node hands that error to it instead of emitting it as the Worker's 'error', which nobody handles. The
 * message is dropped; the worker's exit handler takes over.
 */
export function sendToWorker(worker: Worker, message: object): void {
  if (worker.isConnected()) worker.send(message, () => undefined);
}
