/**
 * The process model (docs/design.md#worker-processes): `--workers 1` is a single process; N > 1 is a primary that
 * prepares the database, then forks N workers sharing one port (node:cluster). bin.ts and start.ts call `serve`
 * (serve.ts) in every process; node:cluster re-runs it in each worker.
 */
import cluster from 'node:cluster';
import type { Config } from '../config/load.js';
import type { LoadedPolicy } from '../services/policy/load.js';

/**
 * Starts this process's part. Resolves with the URL once the service listens (in the single process,
 * or in the primary once every worker is up); resolves with null in a worker. `policy` is the one
 * loadStartup checked (in a worker: the primary's document).
 */
export async function serveProcesses(config: Config, policy: LoadedPolicy): Promise<string | null> {
  // Each role loads only its own modules: the primary serves no requests, so it never loads the HTTP
  // app, the actions and what they use (tens of MB and a good part of the start-up time).
  if (cluster.isWorker) {
    const { runWorker } = await import('./worker.js');
    await runWorker(config, policy);
    return null;
  }
  if (config.workers === 1) {
    const { runSingle } = await import('./single.js');
    return runSingle(config, policy);
  }
  const { runPrimary } = await import('./primary.js');
  return runPrimary(config, policy);
}
