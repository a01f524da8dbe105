/**
 * A cluster worker: serves on the port the primary shares, with the database the primary prepared.
 * It drains and exits 0 when the primary says so, when it gets SIGTERM or SIGINT itself (a signal to
 * the whole process group, e.g. Ctrl-C), or when the primary is gone. It swaps in every policy the
 * primary sends (cluster/policy.ts); a SIGHUP to a worker alone is ignored: reloads go to the primary.
 */
import { primaryAdmissionClient } from '../services/admission/index.js';
import type { Channel } from '../services/admission/index.js';
import { startApp } from '../app.js';
import type { RunningApp } from '../app.js';
import type { Config } from '../config/load.js';
import { flushStdio } from '../log/logger.js';
import type { LoadedPolicy } from '../services/policy/load.js';
import { isPrimaryMessage } from './messages.js';
import type { ListenerClosedMessage, ReadyMessage } from './messages.js';
import { CLOSING_LIMIT_MS, LISTEN_LIMIT_MS } from '../http/drain.js';
import { singleProcessReport } from '../http/health-report.js';
import type { WorkersReport } from '../http/health-report.js';

/** This worker's end of the IPC channel to the primary, for the admission calls. */
const toPrimary: Channel = {
  send: (message) => void process.send?.(message),
  onMessage: (listener) => void process.on('message', listener),
};

/** Without the primary's answer by then (it is gone, or a worker hangs), the held answers go out anyway. */
const LISTENER_CLOSED_TIMEOUT_MS = LISTEN_LIMIT_MS + CLOSING_LIMIT_MS;

/**
 * After this worker closed its listener: resolves once the primary says that no worker takes
 * connections any more (messages.ts, ListenerClosedMessage).
 */
function listenerClosed(): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      process.off('message', onMessage);
      resolve();
    };
    const onMessage = (message: unknown): void => {
      if (isPrimaryMessage(message) && message.type === 'authsvc:listener-closed') done();
    };
    const timer = setTimeout(done, LISTENER_CLOSED_TIMEOUT_MS);
    process.on('message', onMessage);
    const closed: ListenerClosedMessage = { type: 'authsvc:listener-closed' };
    if (process.connected) process.send?.(closed);
    else done();
  });
}

export async function runWorker(config: Config, policy: LoadedPolicy): Promise<void> {
  // Until the primary's first table arrives, a worker knows only itself.
  let report: WorkersReport = singleProcessReport(process.pid);
  let app: RunningApp | null = null;
  // An object, not a `let`: the handlers below change it while startApp is awaited.
  const state: { stopping: string | null } = { stopping: null };
  const drain = (running: RunningApp, why: string): void => {
    running.log.info('worker draining', { why, pid: process.pid });
    // Its last request lines are still batched: exit once they are out.
    const exit = (code: number): void => void flushStdio().then(() => process.exit(code));
    running.close().then(
      () => exit(0),
      () => exit(1),
    );
  };
  // Listening from the start: a shutdown that arrives while the worker is still starting is kept.
  const stop = (why: string): void => {
    if (state.stopping !== null) return;
    state.stopping = why;
    if (app !== null) drain(app, why);
  };
  // A policy that arrives while the worker is still starting is applied once it has started.
  const pending: { policy: Buffer | null } = { policy: null };
  process.on('message', (message) => {
    if (!isPrimaryMessage(message)) return;
    if (message.type === 'authsvc:workers') report = message.report;
    else if (message.type === 'authsvc:policy') {
      const bytes = Buffer.from(message.document, 'base64');
      if (app === null) pending.policy = bytes;
      else app.applyPolicy(bytes);
    } else if (message.type === 'authsvc:shutdown') stop('primary');
  });
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('disconnect', () => stop('primary gone'));
  // Without a handler, SIGHUP would kill the worker (e.g. a terminal closing on the process group).
  process.on('SIGHUP', () => undefined);

  // Limits, replay refusal and back-off are the primary's, one IPC message per request: exact across workers.
  const admission = primaryAdmissionClient(toPrimary);
  app = await startApp({
    config,
    policy,
    worker: { workers: () => report, admission, metrics: toPrimary, listenerClosed },
  });
  if (state.stopping !== null) return drain(app, state.stopping);
  if (pending.policy !== null) app.applyPolicy(pending.policy);
  const ready: ReadyMessage = { type: 'authsvc:ready', url: app.url, policySha256: app.policy.current().sha256 };
  process.send?.(ready);
}
