/**
 * `--workers 1`: one process prepares the database, purges expired rows and serves. SIGHUP reloads
 * the policy (a valid file replaces it, an invalid one is refused and logged, services/policy/reload.ts).
 */
import { startApp } from '../app.js';
import type { Config } from '../config/load.js';
import { flushStdio } from '../log/logger.js';
import type { LoadedPolicy } from '../services/policy/load.js';

export async function runSingle(config: Config, policy: LoadedPolicy): Promise<string> {
  const app = await startApp({ config, policy });
  app.log.info('listening', { url: app.url, workers: 1, startup_ms: Math.round(performance.now()) });
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    app.log.info('stopping', { signal });
    const exit = (code: number): void => {
      app.log.info('stopped', { code });
      // Log lines are batched: exit once they are out (bounded: a reader that never reads cannot hold us).
      void flushStdio().then(() => process.exit(code));
    };
    app.close().then(
      () => exit(0),
      () => exit(1),
    );
  };
  process.on('SIGTERM', () => {
    stop('SIGTERM');
  });
  process.on('SIGINT', () => {
    stop('SIGINT');
  });
  process.on('SIGHUP', () => {
    app.reloadPolicy();
  });
  return app.url;
}
