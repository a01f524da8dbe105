/**
 * A worker's admission store: one IPC message to the cluster primary per call, answered from the
 * primary's memory store (primary-server.ts). A call unanswered within `timeoutMs` fails, so a stuck
 * primary shows up as an error rather than a hung request.
 */
import type { Bucket } from './buckets.js';
import type { AdmissionCall, Channel } from './primary-messages.js';
import { REQUEST_TAG, isAnswerMessage } from './primary-messages.js';
import type { Admission, AdmissionStore, ReplayEntry } from './store.js';

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export function primaryAdmissionClient(channel: Channel, options: { timeoutMs?: number } = {}): AdmissionStore {
  const pending = new Map<number, Pending>();
  const timeoutMs = options.timeoutMs ?? 2000;
  let nextId = 1;

  channel.onMessage((message) => {
    if (!isAnswerMessage(message)) return;
    const call = pending.get(message.id);
    if (call === undefined) return;
    pending.delete(message.id);
    clearTimeout(call.timer);
    if (message.error !== undefined) call.reject(new Error(`admission primary: ${message.error}`));
    else call.resolve(message.result ?? null);
  });

  const ask = (call: AdmissionCall): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`admission primary did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, { resolve, reject, timer });
      channel.send({ tag: REQUEST_TAG, id, call });
    });

  return {
    async admit(buckets: readonly Bucket[], replay: ReplayEntry | undefined, nowMs: number) {
      const call: AdmissionCall =
        replay === undefined ? { op: 'admit', buckets, nowMs } : { op: 'admit', buckets, replay, nowMs };
      return (await ask(call)) as Admission;
    },
    async failure(emailKey, nowMs) {
      return Number(await ask({ op: 'failure', emailKey, nowMs }));
    },
    async success(emailKey) {
      await ask({ op: 'success', emailKey });
    },
    async waitFor(emailKey, nowMs) {
      return Number(await ask({ op: 'waitFor', emailKey, nowMs }));
    },
  };
}
