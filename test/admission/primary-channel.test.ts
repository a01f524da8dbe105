import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { memoryAdmissionStore, replayKey } from '../../src/services/admission/memory-store.js';
import { primaryAdmissionClient } from '../../src/services/admission/primary-client.js';
import type { Channel } from '../../src/services/admission/primary-messages.js';
import { serveAdmission } from '../../src/services/admission/primary-server.js';
import { admissionContract } from './contract.js';

/** Two ends of an IPC channel; messages cross on a later tick and as copies, like process.send. */
function channelPair(): [Channel, Channel] {
  const listeners: [((m: unknown) => void)[], ((m: unknown) => void)[]] = [[], []];
  const end = (mine: 0 | 1): Channel => ({
    send: (message) => {
      const copy: unknown = structuredClone(message);
      setImmediate(() => listeners[1 - mine]?.forEach((fn) => fn(copy)));
    },
    onMessage: (fn) => listeners[mine].push(fn),
  });
  return [end(0), end(1)];
}

admissionContract('cluster primary over a channel', () => {
  const [worker, primary] = channelPair();
  serveAdmission(primary, memoryAdmissionStore());
  return Promise.resolve({ store: primaryAdmissionClient(worker), close: () => undefined });
});

describe('the cluster primary admission store', () => {
  it('is exact across workers: one primary store answers them all', async () => {
    const store = memoryAdmissionStore();
    const workers = [channelPair(), channelPair()].map(([worker, primary]) => {
      serveAdmission(primary, store);
      return primaryAdmissionClient(worker);
    });
    const list = [{ key: 'shared', perMinute: 60, burst: 10 }];
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => workers[i % 2]!.admit(list, undefined, 0)));
    assert.equal(answers.filter((a) => a.kind === 'ok').length, 10);
    const replay = { key: replayKey(Buffer.alloc(32, 7)), expiresAtMs: 120_000 };
    assert.equal((await workers[0]!.admit([], replay, 0)).kind, 'ok');
    assert.equal((await workers[1]!.admit([], replay, 0)).kind, 'replayed');
  });

  it('fails a call the primary never answers, instead of hanging the request', async () => {
    const [worker] = channelPair();
    const client = primaryAdmissionClient(worker, { timeoutMs: 20 });
    await assert.rejects(client.admit([], undefined, 0), /did not answer/);
  });
});
