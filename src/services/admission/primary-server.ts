/**
 * The cluster primary's side: answers each worker's admission calls from one memory store, so limits,
 * replay refusal and back-off are exact across `--workers N`. Call once per worker channel.
 */
import type { MemoryAdmissionStore } from './memory-store.js';
import type { AdmissionAnswerMessage, AdmissionCall, Channel } from './primary-messages.js';
import { ANSWER_TAG, isRequestMessage } from './primary-messages.js';

function answer(store: MemoryAdmissionStore, call: AdmissionCall): AdmissionAnswerMessage['result'] {
  switch (call.op) {
    case 'admit':
      return store.admitSync(call.buckets, call.replay, call.nowMs);
    case 'failure':
      return store.failureSync(call.emailKey, call.nowMs);
    case 'success':
      store.successSync(call.emailKey);
      return null;
    case 'waitFor':
      return store.waitForSync(call.emailKey, call.nowMs);
  }
}

export function serveAdmission(channel: Channel, store: MemoryAdmissionStore): void {
  channel.onMessage((message) => {
    if (!isRequestMessage(message)) return;
    let reply: AdmissionAnswerMessage;
    try {
      reply = { tag: ANSWER_TAG, id: message.id, result: answer(store, message.call) };
    } catch (error) {
      // A malformed call from a worker is that worker's bug: answer it, never crash the primary.
      reply = { tag: ANSWER_TAG, id: message.id, error: error instanceof Error ? error.message : 'failed' };
    }
    try {
      channel.send(reply);
    } catch {
      // The worker has gone; its request went with it.
    }
  });
}
