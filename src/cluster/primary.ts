/**
 * The cluster primary (DESIGN decision 21, trap E3). It serves no requests itself:
 * - migrates and seeds once, before forking, and runs the hourly purge;
 * - forks N workers on the one port and keeps N alive: a dead worker is replaced, with growing
 *   delays while it keeps dying soon after start (backoff.ts);
 * - tells every worker who is alive, for /health;
 * - on SIGHUP checks the policy file again and sends a valid one to every worker (policy.ts);
 * - on SIGTERM or SIGINT asks every worker to drain (answer what it received, accept nothing new),
 *   waits for them, and exits 0. A signal to the primary does not reach the workers by itself.
 * A worker that dies before any worker ever came up means the start failed (a port in use, a bad
 * certificate): the primary stops and exits 1 instead of restarting it forever.
 */
import cluster from 'node:cluster';
import type { Worker } from 'node:cluster';
import { prepareDatabase } from '../app.js';
import type { Config } from '../config/load.js';
import { systemClock } from '../domain/ports.js';
import { createLogger } from '../log/logger.js';
import { planRestart } from './backoff.js';
import { startCleanup } from '../store/cleanup-timer.js';
import { isPolicyRequest, isReady } from './messages.js';
import { policyKeeper } from './policy.js';
import type { PrimaryMessage } from './messages.js';
import { reportOf } from '../http/health-report.js';
import type { WorkerEntry, WorkerState } from '../http/health-report.js';

/** Longer than the HTTP request timeout (30 s), so every received request can still be answered. */
const DRAIN_LIMIT_MS = 40_000;

interface Slot {
  readonly slot: number;
  worker: Worker | null;
  state: WorkerState;
  restarts: number;
  crashes: number;
  startedAt: number;
  timer: NodeJS.Timeout | null;
}

export async function runPrimary(config: Config): Promise<string> {
  const log = createLogger(process.stdout);
  const prepared = await prepareDatabase({ config, log });
  const cleanup = startCleanup(prepared.store, systemClock, log);
  const policy = policyKeeper(config.permissionsPath, config.policy.bytes, log);

  const slots: Slot[] = Array.from({ length: config.workers }, (_, i) => ({
    slot: i + 1,
    worker: null,
    state: 'starting',
    restarts: 0,
    crashes: 0,
    startedAt: 0,
    timer: null,
  }));
  let everReady = false;
  let announce: (url: string) => void = () => undefined;
  const listening = new Promise<string>((resolve) => {
    announce = resolve;
  });
  let stopping = false;

  const entries = (): WorkerEntry[] =>
    slots.map((s) => ({ slot: s.slot, pid: s.worker?.process.pid ?? null, state: s.state, restarts: s.restarts }));
  const send = (worker: Worker, message: PrimaryMessage): void => {
    if (worker.isConnected()) worker.send(message);
  };
  const broadcast = (): void => {
    const message: PrimaryMessage = { type: 'authsvc:workers', report: reportOf(entries()) };
    for (const s of slots) if (s.worker !== null) send(s.worker, message);
  };

  let finished = false;
  const finish = (code: number): void => {
    if (finished) return;
    finished = true;
    cleanup.stop();
    prepared.store.close().then(
      () => process.exit(code),
      () => process.exit(code === 0 ? 1 : code),
    );
  };

  let exitCode = 0;
  const stop = (why: string, code = 0): void => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    log.info('stopping', { signal: why, workers: slots.filter((s) => s.worker !== null).length });
    for (const s of slots) {
      if (s.timer !== null) clearTimeout(s.timer);
      s.timer = null;
      if (s.worker === null) continue;
      s.state = 'stopping';
      send(s.worker, { type: 'authsvc:shutdown' });
    }
    if (slots.every((s) => s.worker === null)) return finish(code);
    setTimeout(() => {
      log.error('workers did not drain in time; killing them', { limit_ms: DRAIN_LIMIT_MS });
      for (const s of slots) s.worker?.process.kill('SIGKILL');
      finish(1);
    }, DRAIN_LIMIT_MS).unref();
  };

  const fork = (slot: Slot): void => {
    slot.timer = null;
    const worker = cluster.fork();
    slot.worker = worker;
    slot.state = 'starting';
    slot.startedAt = performance.now();
    worker.on('message', (message: unknown) => {
      if (isPolicyRequest(message)) {
        send(worker, policy.message());
        return;
      }
      if (!isReady(message) || slot.worker !== worker || stopping) return;
      // A reload between the worker's request and its start: it gets the document in force now.
      if (message.policySha256 !== policy.sha256()) send(worker, policy.message());
      slot.state = 'up';
      if (!everReady && slots.every((s) => s.state === 'up')) {
        everReady = true;
        log.info('listening', {
          url: message.url,
          workers: slots.length,
          startup_ms: Math.round(performance.now()),
        });
        announce(message.url);
      }
      broadcast();
    });
    worker.on('exit', (code, signal) => {
      if (slot.worker !== worker) return;
      slot.worker = null;
      if (stopping) {
        slot.state = 'stopping';
        if (slots.every((s) => s.worker === null)) finish(exitCode);
        return;
      }
      if (!everReady) {
        log.error('a worker could not start; stopping', { slot: slot.slot, code, signal });
        stop('start failed', 1);
        return;
      }
      const plan = planRestart(slot.crashes, performance.now() - slot.startedAt);
      slot.crashes = plan.crashes;
      slot.restarts += 1;
      slot.state = 'restarting';
      log.warn('worker died; restarting it', {
        slot: slot.slot,
        pid: worker.process.pid,
        code,
        signal,
        delay_ms: plan.delayMs,
      });
      slot.timer = setTimeout(() => fork(slot), plan.delayMs);
      broadcast();
    });
    broadcast();
  };

  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGHUP', () => {
    if (stopping) return;
    const message = policy.reload();
    if (message !== null) for (const s of slots) if (s.worker !== null) send(s.worker, message);
  });
  for (const slot of slots) fork(slot);
  return listening;
}
