/** The messages between the cluster primary and its workers (node:cluster IPC). */
import type { WorkersReport } from './report.js';

/** Worker → primary: listening, at this URL. */
export interface ReadyMessage {
  readonly type: 'authsvc:ready';
  readonly url: string;
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

export type PrimaryMessage = WorkersMessage | ShutdownMessage;

function typed(message: unknown): string | null {
  return typeof message === 'object' && message !== null && 'type' in message && typeof message.type === 'string'
    ? message.type
    : null;
}

export function isReady(message: unknown): message is ReadyMessage {
  return typed(message) === 'authsvc:ready';
}

export function isPrimaryMessage(message: unknown): message is PrimaryMessage {
  const type = typed(message);
  return type === 'authsvc:workers' || type === 'authsvc:shutdown';
}
