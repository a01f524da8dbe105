/**
 * The primary's messages to a worker that died a moment ago: its channel still says connected until node
 * handles the exit, so the write fails with EPIPE, which node:cluster emits as an 'error' on the Worker. With
 * nobody listening, that took the primary down mid-stop (a start failure with two workers printed a stack).
 * sendToWorker drops such a message: the worker's exit handler takes over.
 */
import assert from 'node:assert/strict';
import cluster from 'node:cluster';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { sendToWorker } from '../../src/cluster/messages.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('worker-send');

it('a message to a worker that has just died is dropped, not thrown', async () => {
  const script = join(dir, 'idle-worker.mjs');
  writeFileSync(script, 'setInterval(() => {}, 1000);\n');
  cluster.setupPrimary({ exec: script, silent: true });
  const worker = cluster.fork();
  await new Promise<void>((resolve) => worker.once('online', resolve));
  worker.process.kill('SIGKILL');
  // Let it die while this process cannot yet hear of it.
  const until = Date.now() + 300;
  while (Date.now() < until) {
    /* busy: the exit is handled only after this turn */
  }
  assert.equal(worker.isConnected(), true, 'the channel still says connected');
  // Thrown, it is an uncaught exception, which node:test reports as this test's failure.
  sendToWorker(worker, { type: 'authsvc:shutdown' });
  await new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  await new Promise((resolve) => setImmediate(resolve));
});
