/**
 * The process model (DESIGN decision 21): `--workers 1` is a single process; N > 1 is a primary that
 * prepares the database, then forks N workers sharing one port (node:cluster). main.ts calls `serve`
 * in every process; node:cluster re-runs it in each worker.
 */
import cluster from 'node:cluster';
import type { Config } from '../config/load.js';
import { runPrimary } from './primary.js';
import { runSingle } from './single.js';
import { runWorker } from './worker.js';

export function serve(config: Config): Promise<void> {
  if (cluster.isWorker) return runWorker(config);
  return config.workers === 1 ? runSingle(config) : runPrimary(config);
}
