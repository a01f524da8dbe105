/**
 * The process model (DESIGN decision 21): `--workers 1` is a single process; N > 1 is a primary that
 * prepares the database, then forks N workers sharing one port (node:cluster). main.ts calls `serve`
 * in every process; node:cluster re-runs it in each worker.
 */
import cluster from 'node:cluster';
import type { Config } from '../config/load.js';
import type { LoadedPolicy } from '../policy/load.js';
import { runPrimary } from './primary.js';
import { runSingle } from './single.js';
import { runWorker } from './worker.js';

/**
 * Starts this process's part. Resolves with the URL once the service listens (in the single process,
 * or in the primary once every worker is up); resolves with null in a worker. `policy` is the one
 * loadStartup checked (in a worker: the primary's document).
 */
export async function serveProcesses(config: Config, policy: LoadedPolicy): Promise<string | null> {
  if (cluster.isWorker) {
    await runWorker(config, policy);
    return null;
  }
  return config.workers === 1 ? runSingle(config, policy) : runPrimary(config, policy);
}
