/**
 * The SQLite purge on a thread of its own (docs/design.md#sessions-and-the-purge). better-sqlite3 runs every
 * statement synchronously, so a purge on the serving thread's connection held up each request that arrived during a
 * batch. Here the purge has its own connection on a worker thread: in WAL mode the server's reads never wait for it,
 * and its writes wait at most for one batch (the busy timeout), as they do when the primary of a cluster purges.
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { purgeExpired } from './cleanup.js';
import type { PurgeOptions, PurgeReport } from './cleanup.js';
import { openSqlite } from './sqlite.js';
import type { SqliteTarget } from './url.js';

interface Job {
  readonly target: SqliteTarget;
  readonly now: number;
  readonly batch: number | undefined;
}

type Message =
  { readonly progress: readonly [string, number] } | { readonly report: PurgeReport } | { readonly error: string };

/** Runs the purge of `target` at `now` on a new worker thread, which ends with it. */
export function purgeOnThread(target: SqliteTarget, now: number, options: PurgeOptions): Promise<PurgeReport> {
  // From dist this file is .js; from src (tests, tsx) it is .ts, and the worker inherits tsx through execArgv.
  const self = fileURLToPath(import.meta.url);
  const job: Job = { target, now, batch: options.batch };
  const worker = new Worker(new URL(`./purge-thread${extname(self)}`, import.meta.url), { workerData: job });
  return new Promise<PurgeReport>((resolve, reject) => {
    let settled = false;
    worker.on('message', (message: Message) => {
      if ('progress' in message) options.progress?.(...message.progress);
      else {
        settled = true;
        if ('report' in message) resolve(message.report);
        else reject(new Error(message.error));
      }
    });
    worker.on('error', (error) => {
      settled = true;
      reject(error);
    });
    worker.on('exit', (code) => {
      if (!settled) reject(new Error(`the purge thread exited with code ${code} before it finished`));
    });
  });
}

async function runJob(job: Job): Promise<void> {
  const port = parentPort;
  if (port === null) return;
  const db = openSqlite(job.target);
  try {
    const report = await purgeExpired(db, job.now, {
      ...(job.batch === undefined ? {} : { batch: job.batch }),
      progress: (table, deleted) => port.postMessage({ progress: [table, deleted] } satisfies Message),
    });
    port.postMessage({ report } satisfies Message);
  } catch (error) {
    port.postMessage({ error: error instanceof Error ? error.message : String(error) } satisfies Message);
  } finally {
    await db.close();
  }
}

if (!isMainThread && (workerData as Partial<Job> | null)?.target !== undefined) await runJob(workerData as Job);
