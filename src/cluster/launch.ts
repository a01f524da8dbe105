/**
 * How an authsvc process is launched: libuv's thread pool is sized here, and the V8 flag is named here.
 * The first import of both entry files (bin.ts, start.ts), so that this runs before any module can start
 * the pool; it imports nothing of src/ (.dependency-cruiser.cjs, test/architecture/launch.test.ts).
 *
 * Password hashes run on the pool. An argon2id hash allocates its memory (7 MiB by default) on the pool thread that runs
 * it, and glibc keeps the freed block in that thread's arena for the next hash: a process ends up
 * holding one block for every pool thread that ever hashed, though the hash queue (accounts/password-hashing.ts)
 * admits only as many hashes at once as there are cores. So the pool gets one thread per core (libuv's
 * default is 4): on 2 cores two blocks less after logins, on 8 cores hashes no longer wait for one of 4
 * threads. Nothing else on the request path uses the pool (SQLite is synchronous, log lines go to a
 * pipe); a DNS lookup waits for one hash at most.
 *
 * libuv reads UV_THREADPOOL_SIZE once, when the first task starts the pool; the ES module loader reads
 * files without it, so the first module to run can still size it. The variable is set only for that
 * moment: the environment stays as the operator gave it, and a cluster primary gives each worker its own
 * (worker-runtime.ts). An operator's UV_THREADPOOL_SIZE is kept.
 */
import { stat } from 'node:fs';
import { availableParallelism } from 'node:os';

/**
 * 4 MB V8 semi-spaces: V8 otherwise grows the young generation to 32 MB (64 MB on Node 24) while
 * loading the app and keeps it, though a request's garbage fits in far less (measured by `npm run
 * bench`: about 15 MB less per process, CPU per request unchanged). A flag of node's command line:
 * v8.setFlagsFromString() once running leaves the heap as it was configured (measured: new space 16 MB
 * idle either way, 8 MB with the flag).
 *
 * One V8 platform thread (node's default is 4): V8 runs its background work (concurrent marking and
 * sweeping, optimising compiles) there, and every thread that allocates keeps a C-allocator arena of its own.
 * One process measured 97 MB idle and 155 MB right after `npm run bench` with one thread, 103 and 164 MB
 * with four, on 2 cores that the main thread and the load generator keep busy anyway (docs/performance.md).
 *
 * Both are flags of node's command line, so they are written in bin.ts's first line, the `start` script,
 * the Dockerfile and the systemd unit (test/deploy checks each against this), and given to each worker.
 */
export const NODE_FLAGS = ['--max-semi-space-size=4', '--v8-pool-size=1'] as const;

// Read here rather than in config/environment.ts: loading that module first could start the pool.
// eslint-disable-next-line no-restricted-properties
const env = process.env;
if (env['UV_THREADPOOL_SIZE'] === undefined) {
  env['UV_THREADPOOL_SIZE'] = String(availableParallelism());
  // The first task starts the pool, which reads the variable then, synchronously.
  stat(import.meta.filename, () => undefined);
  delete env['UV_THREADPOOL_SIZE'];
}
