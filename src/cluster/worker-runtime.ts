/**
 * How the primary starts a worker process: its node flags and the environment it adds. Each is left
 * as it is when the operator chose it (on the command line, in NODE_OPTIONS, in the environment).
 */
import type { Environment } from '../config/environment.js';
import { MALLOC_TUNABLES } from '../passwords/hash-memory.js';
import { defaultHashQueueOptions } from '../passwords/hash-queue.js';

/**
 * V8 grows a process's young generation to its 32 MB maximum while loading the app, and keeps it: a
 * third of an idle worker's memory. A request's garbage fits in far less, so each worker gets 4 MB
 * semi-spaces (measured by `npm run bench`: about 15 MB less per worker, CPU per request unchanged).
 */
export const WORKER_SEMI_SPACE_MB = 4;

export function workerExecArgv(execArgv: readonly string[], env: Environment): string[] {
  const chosen = [...execArgv, env['NODE_OPTIONS'] ?? ''].some((arg) => arg.includes('--max-semi-space-size'));
  return chosen ? [...execArgv] : [...execArgv, `--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`];
}

/**
 * A worker hashes at most `concurrency` passwords at once (passwords/hash-queue.ts). An argon2id hash
 * mallocs its 19 MiB on the libuv pool thread that runs it, and once glibc has seen such a block freed
 * it keeps the next ones in that thread's arena instead of returning them: with libuv's default four
 * threads a worker held 4 × 19 MiB after its first logins, though it never runs more than
 * `concurrency` hashes. So its pool has that many threads. Nothing else on the request path uses the
 * pool (SQLite is synchronous, log lines go to a pipe); a DNS lookup waits for one hash at most.
 * (Returning the blocks to the system after every hash, with MALLOC_MMAP_THRESHOLD_, costs 7 ms of page
 * faults per 17 ms verify: measured, refused. They go back once the worker stops hashing instead.)
 */
export function workerEnv(env: Environment, workers: number): Record<string, string> {
  return {
    ...(env['UV_THREADPOOL_SIZE'] === undefined
      ? { UV_THREADPOOL_SIZE: String(defaultHashQueueOptions(workers).concurrency) }
      : {}),
    // glibc's settings under which a worker gives its hashes' memory back once idle (hash-memory.ts).
    ...(env['GLIBC_TUNABLES'] === undefined ? { GLIBC_TUNABLES: MALLOC_TUNABLES } : {}),
  };
}
