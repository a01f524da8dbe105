/**
 * Sizes libuv's thread pool for password hashing, before anything starts the pool. CommonJS, because
 * the ESM loader starts the pool (4 threads, or UV_THREADPOOL_SIZE) to read the first ES module.
 *
 * An argon2id hash mallocs its 19 MiB on the pool thread that runs it, and once glibc has seen such a
 * block freed it keeps the next ones in that thread's arena instead of returning them: a process ends
 * up holding 19 MiB for every pool thread that ever hashed, though the hash queue
 * (passwords/hash-queue.ts) admits only as many hashes at once as there are cores. So the pool gets one
 * thread per core: on 2 cores 38 MiB less after logins, on 8 cores hashes no longer wait for one of 4
 * threads. (With the GLIBC_TUNABLES of passwords/hash-memory.ts the blocks share the main arena and
 * go back once hashing stops.) Nothing else on the request path uses the pool (SQLite is synchronous,
 * log lines go to a pipe); a DNS lookup waits for one hash at most. The value applies to this process only: the
 * environment is left as the operator gave it, and a cluster primary gives each worker its own
 * (cluster/worker-runtime.ts). An operator's UV_THREADPOOL_SIZE is kept.
 */
import fs = require('node:fs');
import os = require('node:os');

function sizeThreadPool(): void {
  // Read here rather than in config/environment.ts: that is an ES module, and loading it starts the pool.
  // eslint-disable-next-line no-restricted-properties
  const env = process.env;
  if (env['UV_THREADPOOL_SIZE'] !== undefined) return;
  env['UV_THREADPOOL_SIZE'] = String(os.availableParallelism());
  // The first request to the pool starts it and reads the variable, synchronously.
  fs.stat(__filename, () => undefined);
  delete env['UV_THREADPOOL_SIZE'];
}

export = sizeThreadPool;
