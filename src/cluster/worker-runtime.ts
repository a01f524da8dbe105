/**
 * How the primary starts a worker process: its node flags and the environment it adds. Each is left
 * as it is when the operator chose it (on the command line, in NODE_OPTIONS, in the environment).
 */
import type { Environment } from '../config/environment.js';
import { defaultHashQueueOptions } from '../services/passwords/hashing.js';
import { SEMI_SPACE_FLAG } from './launch.js';

/** The semi-space flag of launch.ts, also when the primary itself was started without it. */
export function workerExecArgv(execArgv: readonly string[], env: Environment): string[] {
  const chosen = [...execArgv, env['NODE_OPTIONS'] ?? ''].some((arg) => arg.includes('--max-semi-space-size'));
  return chosen ? [...execArgv] : [...execArgv, SEMI_SPACE_FLAG];
}

/**
 * A worker hashes at most `concurrency` passwords at once (services/passwords/hashing.ts), and glibc keeps a
 * freed argon2 block (12 MiB by default) in the arena of each pool thread that hashed (launch.ts): with libuv's
 * default four threads a worker held four blocks after its first logins, though it never runs more than
 * `concurrency` hashes. So its pool has that many threads.
 */
export function workerEnv(env: Environment, workers: number): Record<string, string> {
  return env['UV_THREADPOOL_SIZE'] === undefined
    ? { UV_THREADPOOL_SIZE: String(defaultHashQueueOptions(workers).concurrency) }
    : {};
}
