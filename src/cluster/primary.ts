/**
 * The cluster primary (docs/design.md#worker-processes, docs/design.md#signals-reach-the-primary-only). It serves no
 * requests itself:
 * - migrates and seeds once, before forking, and runs the hourly purge;
 * - forks N workers on the one port and keeps N alive: a dead worker is replaced, with growing
 *   delays while it keeps dying soon after start (backoff.ts);
 * - tells every worker who is alive, for /health;
 * - on SIGHUP checks the policy file again and sends a valid one to every worker (policy.ts);
 * - with `metrics` 1, answers each worker's scrape with the sum over every process (services/metrics/cluster.ts);
 * - on SIGTERM or SIGINT asks every worker to drain (answer what it received, accept nothing new),
 *   waits for them, and exits 0. A signal to the primary does not reach the workers by itself.
 * A worker that dies before any worker ever came up means the start failed (a port in use, a bad
 * certificate): the primary stops and exits 1 instead of restarting it forever.
 */
import cluster from 'node:cluster';
import type { Worker } from 'node:cluster';
import { memoryAdmissionStore, serveAdmission } from '../services/admission/index.js';
import { auditOf, metricsAuditSink } from '../log/audit-wiring.js';
import type { AuditSink } from '../log/audit.js';
import type { Channel, MemoryAdmissionStore } from '../services/admission/index.js';
import { readEnvironment } from '../config/environment.js';
import type { Config } from '../config/load.js';
import { systemClock, randomSource } from '../domain/ports.js';
import { reportOf } from '../http/health-report.js';
import type { WorkerEntry, WorkerState } from '../http/health-report.js';
import { createLogger, flushStdio } from '../log/logger.js';
import type { Logger } from '../log/logger.js';
import type { MetricsHub } from '../services/metrics/cluster.js';
import type { PurgeObserver } from '../domain/purge.js';
import type { LoadedPolicy } from '../services/policy/load.js';
import { prepareDatabase } from '../setup/first-start.js';
import { startCleanup } from '../services/store/cleanup-timer.js';
import { planRestart } from './backoff.js';
import { isListenerClosed, isPolicyRequest, isReady, isStartFailed, sendToWorker } from './messages.js';
import type { PrimaryMessage, ReadyMessage, StartFailedMessage } from './messages.js';
import { policyKeeper } from './policy.js';
import type { PolicyKeeper } from './policy.js';
import { printStartFailure } from './start-failure.js';
import { workerEnv, workerExecArgv } from './worker-runtime.js';

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
  /** Its worker closed its listener and waits to be told that no worker takes connections any more. */
  listenerClosed: boolean;
}

/** The primary's state, shared by the handlers below. */
interface Primary {
  readonly slots: Slot[];
  readonly log: Logger;
  readonly policy: PolicyKeeper;
  /** The one admission store of every worker (replay, rate limits, back-off), asked over IPC. */
  readonly admission: MemoryAdmissionStore;
  /** Sums the processes' metrics for a worker's /metrics; null with metrics off. */
  readonly metrics: MetricsHub | null;
  /** What each worker's environment adds to the primary's (worker-runtime.ts). */
  readonly workerEnv: Record<string, string>;
  /** Resolves runPrimary's promise once every worker is up. */
  readonly announce: (url: string) => void;
  /** Releases the database and exits the process. */
  readonly release: () => Promise<void>;
  everReady: boolean;
  /** What the first worker that could not start said (printed once, however many failed). */
  startFailure: StartFailedMessage | null;
  stopping: boolean;
  finished: boolean;
  exitCode: number;
}

const newSlot = (i: number): Slot => ({
  slot: i + 1,
  worker: null,
  state: 'starting',
  restarts: 0,
  crashes: 0,
  startedAt: 0,
  timer: null,
  listenerClosed: false,
});

function sendAll(primary: Primary, message: PrimaryMessage): void {
  for (const s of primary.slots) if (s.worker !== null) sendToWorker(s.worker, message);
}

/** The table of workers, for every worker's /health. */
function broadcastWorkers(primary: Primary): void {
  const entries: WorkerEntry[] = primary.slots.map((s) => ({
    slot: s.slot,
    pid: s.worker?.process.pid ?? null,
    state: s.state,
    restarts: s.restarts,
  }));
  sendAll(primary, { type: 'authsvc:workers', report: reportOf(entries) });
}

function finish(primary: Primary, code: number): void {
  if (primary.finished) return;
  primary.finished = true;
  // The last line an operator sees: every worker is gone and the database is closed (or not).
  const exit = (exitCode: number): void => {
    primary.log.info('stopped', { code: exitCode });
    // Log lines are batched: exit once they are out (bounded: a reader that never reads cannot hold us).
    void flushStdio().then(() => process.exit(exitCode));
  };
  primary.release().then(
    () => exit(code),
    () => exit(code === 0 ? 1 : code),
  );
}

/** Asks every worker to drain; exits once all are gone, or kills them after the drain limit. */
function stop(primary: Primary, why: string, code = 0): void {
  if (primary.stopping) return;
  primary.stopping = true;
  primary.exitCode = code;
  const { slots, log } = primary;
  log.info('stopping', { signal: why, workers: slots.filter((s) => s.worker !== null).length });
  for (const s of slots) {
    if (s.timer !== null) clearTimeout(s.timer);
    s.timer = null;
    if (s.worker === null) continue;
    s.state = 'stopping';
    sendToWorker(s.worker, { type: 'authsvc:shutdown' });
  }
  if (slots.every((s) => s.worker === null)) return finish(primary, code);
  setTimeout(() => {
    log.error('workers did not drain in time; killing them', { limit_ms: DRAIN_LIMIT_MS });
    for (const s of slots) s.worker?.process.kill('SIGKILL');
    finish(primary, 1);
  }, DRAIN_LIMIT_MS).unref();
}

/**
 * A draining worker holds its last answers until no worker takes connections any more (http/drain.ts):
 * the clients they go to connect again at once, and node:cluster resets the connections it still holds
 * when the last worker closes. node:cluster handled each worker's own `close` before its
 * `listener-closed`, which followed it on the channel; so once every worker has said it, the listening
 * socket is closed and new connections are refused at connect. Each worker is told then (while not
 * stopping, at once: the other workers take the connections).
 */
function releaseHeldAnswers(primary: Primary): void {
  const live = primary.slots.filter((s) => s.worker !== null);
  if (primary.stopping && !live.every((s) => s.listenerClosed)) return;
  for (const s of live) {
    if (!s.listenerClosed || s.worker === null) continue;
    sendToWorker(s.worker, { type: 'authsvc:listener-closed' });
    s.listenerClosed = false;
  }
}

function onReady(primary: Primary, slot: Slot, worker: Worker, message: ReadyMessage): void {
  if (slot.worker !== worker || primary.stopping) return;
  // A reload between the worker's request and its start: it gets the document in force now.
  if (message.policySha256 !== primary.policy.sha256()) sendToWorker(worker, primary.policy.message());
  slot.state = 'up';
  if (!primary.everReady && primary.slots.every((s) => s.state === 'up')) {
    primary.everReady = true;
    const startup_ms = Math.round(performance.now());
    primary.log.info('listening', { url: message.url, workers: primary.slots.length, startup_ms });
    primary.announce(message.url);
  }
  broadcastWorkers(primary);
}

function onExit(primary: Primary, slot: Slot, worker: Worker, code: number, signal: string): void {
  if (slot.worker !== worker) return;
  slot.worker = null;
  if (primary.stopping) {
    slot.state = 'stopping';
    slot.listenerClosed = false;
    if (primary.slots.every((s) => s.worker === null)) finish(primary, primary.exitCode);
    else releaseHeldAnswers(primary);
    return;
  }
  if (!primary.everReady) {
    // One line for the operator, however many workers failed the same way (cluster/start-failure.ts).
    const failure = primary.startFailure;
    const line = failure?.line ?? `worker ${slot.slot} exited (${signal || `code ${code}`}) before it could listen`;
    printStartFailure(process.stderr, line, failure?.stack ?? null);
    return stop(primary, 'start failed', 1);
  }
  const plan = planRestart(slot.crashes, performance.now() - slot.startedAt);
  slot.crashes = plan.crashes;
  slot.restarts += 1;
  slot.state = 'restarting';
  const details = { slot: slot.slot, pid: worker.process.pid, code, signal, delay_ms: plan.delayMs };
  primary.log.warn('worker died; restarting it', details);
  slot.timer = setTimeout(() => fork(primary, slot), plan.delayMs);
  broadcastWorkers(primary);
}

/** The primary's end of one worker's IPC channel, for its admission calls. */
function channelTo(worker: Worker): Channel {
  return {
    send: (message) => {
      sendToWorker(worker, message as object);
    },
    onMessage: (listener) => void worker.on('message', listener),
  };
}

function fork(primary: Primary, slot: Slot): void {
  slot.timer = null;
  const worker = cluster.fork(primary.workerEnv);
  serveAdmission(channelTo(worker), primary.admission);
  const detachMetrics = primary.metrics?.attach(channelTo(worker));
  slot.worker = worker;
  slot.listenerClosed = false;
  slot.state = 'starting';
  slot.startedAt = performance.now();
  worker.on('message', (message: unknown) => {
    if (isPolicyRequest(message)) sendToWorker(worker, primary.policy.message());
    else if (isReady(message)) onReady(primary, slot, worker, message);
    else if (isStartFailed(message)) primary.startFailure ??= message;
    else if (isListenerClosed(message)) {
      slot.listenerClosed = true;
      releaseHeldAnswers(primary);
    }
  });
  worker.on('exit', (code, signal) => {
    detachMetrics?.();
    onExit(primary, slot, worker, code, signal);
  });
  broadcastWorkers(primary);
}

function handleSignals(primary: Primary): void {
  process.on('SIGTERM', () => stop(primary, 'SIGTERM'));
  process.on('SIGINT', () => stop(primary, 'SIGINT'));
  process.on('SIGHUP', () => {
    if (primary.stopping) return;
    // The keeper records the reload or its refusal, once, here: the workers only apply what it accepted.
    const message = primary.policy.reload();
    if (message !== null) sendAll(primary, message);
  });
}

/**
 * With `metrics` 1, the hub that sums every process's metrics (the primary's own registry holds its
 * process metrics and the policy reloads it decides) and the audit sink that counts those reloads.
 */
async function primaryMetricsOf(
  config: Config,
): Promise<{ sinks: AuditSink[]; metrics: MetricsHub | null; purges: PurgeObserver | null }> {
  if (config.metrics === null) return { sinks: [], metrics: null, purges: null };
  const { createPrimaryMetrics } = await import('../services/metrics/prometheus.js');
  const { metricsHub } = await import('../services/metrics/cluster.js');
  const own = createPrimaryMetrics();
  return { sinks: [metricsAuditSink(own)], metrics: metricsHub(own.registry), purges: own };
}

/** Resolves with the URL once every worker listens. `policy` is the one checked before forking. */
export async function runPrimary(config: Config, policy: LoadedPolicy): Promise<string> {
  const log = createLogger(process.stdout, config.logLevel, config.logFormat);
  const prepared = await prepareDatabase({ config, log });
  const { sinks, metrics, purges } = await primaryMetricsOf(config);
  const cleanup = startCleanup(prepared.store, systemClock, log, config.purge, purges);
  // The primary's own audit events are the policy reloads; the workers send their requests' events.
  const audit = auditOf(config, log, systemClock, randomSource, { sinks });
  const env = readEnvironment();
  return new Promise<string>((announce) => {
    const primary: Primary = {
      workerEnv: workerEnv(env, config.workers),
      slots: Array.from({ length: config.workers }, (_, i) => newSlot(i)),
      log,
      policy: policyKeeper(config.permissionsPath, policy.bytes, log, audit.sink),
      admission: memoryAdmissionStore(),
      metrics,
      announce,
      release: async () => {
        cleanup.stop();
        await audit.webhook?.close();
        await prepared.store.close();
      },
      everReady: false,
      startFailure: null,
      stopping: false,
      finished: false,
      exitCode: 0,
    };
    handleSignals(primary);
    cluster.setupPrimary({ execArgv: workerExecArgv(process.execArgv, env) });
    for (const slot of primary.slots) fork(primary, slot);
  });
}
