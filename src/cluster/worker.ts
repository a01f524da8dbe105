/**
 * A cluster worker: serves on the port the primary shares, with the database the primary prepared.
 * It drains and exits 0 when the primary says so, when it gets SIGTERM or SIGINT itself (a signal to
 * the whole process group, e.g. Ctrl-C), or when the primary is gone.
 */
import { startApp } from '../app.js';
import type { Config } from '../config/load.js';
import { isPrimaryMessage } from './messages.js';
import type { ReadyMessage } from './messages.js';
import { singleProcessReport } from './report.js';
import type { WorkersReport } from './report.js';

export async function runWorker(config: Config): Promise<void> {
  // Until the primary's first table arrives, a worker knows only itself.
  let report: WorkersReport = singleProcessReport(process.pid);
  const app = await startApp({ config, worker: { workers: () => report } });

  let stopping = false;
  const stop = (why: string): void => {
    if (stopping) return;
    stopping = true;
    app.log.info('worker draining', { why, pid: process.pid });
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('message', (message) => {
    if (!isPrimaryMessage(message)) return;
    if (message.type === 'authsvc:workers') report = message.report;
    else stop('primary');
  });
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('disconnect', () => stop('primary gone'));
  const ready: ReadyMessage = { type: 'authsvc:ready', url: app.url };
  process.send?.(ready);
}
