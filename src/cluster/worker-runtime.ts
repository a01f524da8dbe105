/**
 * How the primary starts a worker process: its node flags and the environment it adds. Each is left
 * as it is when the operator chose it (on the command line, in NODE_OPTIONS, in the environment).
 */
import type { Environment } from '../config/environment.js';
import { defaultHashQueueOptions } from '../accounts/password-hashing.js';
import { NODE_FLAGS } from './launch.js';

/** The node flags of launch.ts, also when the primary itself was started without them; each kept if chosen. */
export function workerExecArgv(execArgv: readonly string[], env: Environment): string[] {
  const given = [...execArgv, env['NODE_OPTIONS'] ?? ''];
  const missing = NODE_FLAGS.filter((flag) => {
    const name = flag.slice(0, flag.indexOf('='));
    return !given.some((arg) => arg.includes(name));
  });
  return [...execArgv, ...missing];
}

/**
 * A worker hashes at most `concurrency` passwords at once (accounts/password-hashing.ts), and glibc keeps a
 * freed argon2 block (7 MiB by default) in the arena of each pool thread that hashed (launch.ts): with libuv's
 * default four threads a worker held four blocks after its first logins, though it never runs more than
 * `concurrency` hashes. So its pool has that many threads.
 */
export function workerEnv(env: Environment, workers: number): Record<string, string> {
  return env['UV_THREADPOOL_SIZE'] === undefined
    ? { UV_THREADPOOL_SIZE: String(defaultHashQueueOptions(workers).concurrency) }
    : {};
}
