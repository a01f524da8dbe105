/**
 * The IPC messages between a worker and the cluster primary's admission store: one request and one
 * answer per admission, tagged so they share the process channel with other messages. Written against
 * a two-method channel, so tests run without node:cluster and the lead wires `process.send` (worker) or
 * `worker.send` (primary) to it.
 */
import type { Bucket } from './buckets.js';
import type { Admission, ReplayEntry } from './store.js';

export interface Channel {
  send(message: unknown): void;
  onMessage(listener: (message: unknown) => void): void;
}

export const REQUEST_TAG = 'authsvc-admission';
export const ANSWER_TAG = 'authsvc-admission-answer';

export type AdmissionCall =
  | { readonly op: 'admit'; readonly buckets: readonly Bucket[]; readonly replay?: ReplayEntry; readonly nowMs: number }
  | { readonly op: 'failure'; readonly emailKey: string; readonly nowMs: number }
  | { readonly op: 'success'; readonly emailKey: string }
  | { readonly op: 'waitFor'; readonly emailKey: string; readonly nowMs: number };

export interface AdmissionRequestMessage {
  readonly tag: typeof REQUEST_TAG;
  readonly id: number;
  readonly call: AdmissionCall;
}

export interface AdmissionAnswerMessage {
  readonly tag: typeof ANSWER_TAG;
  readonly id: number;
  /** An Admission for `admit`, a number for `failure`/`waitFor`, null for `success`; or why it failed. */
  readonly result?: Admission | number | null;
  readonly error?: string;
}

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null;

export function isRequestMessage(message: unknown): message is AdmissionRequestMessage {
  return isRecord(message) && message['tag'] === REQUEST_TAG && typeof message['id'] === 'number';
}

export function isAnswerMessage(message: unknown): message is AdmissionAnswerMessage {
  return isRecord(message) && message['tag'] === ANSWER_TAG && typeof message['id'] === 'number';
}
