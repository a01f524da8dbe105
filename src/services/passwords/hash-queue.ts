/**
 * Admission of hashing work (docs/design.md#passwords, docs/design.md#hashing-on-the-thread-pool). Password hashes run
 * on libuv's thread pool, off the event loop; this bounds how many run at once in this process (about the core count
 * divided among the workers) and how many may wait. When the queue is full the request is answered at once
 * with 503 and Retry-After instead of queueing without limit: under a login flood latency stays
 * bounded and the machine keeps serving everything else.
 */
import { availableParallelism } from 'node:os';
import { UnavailableError } from '../../domain/errors.js';

export interface HashQueue {
  run<T>(task: () => Promise<T>): Promise<T>;
  readonly running: number;
  readonly waiting: number;
}

export interface HashQueueOptions {
  readonly concurrency: number;
  readonly maxWaiting: number;
}

/** The budget of one process when `workers` processes share the machine. */
export function defaultHashQueueOptions(workers: number): HashQueueOptions {
  const concurrency = Math.max(1, Math.floor(availableParallelism() / Math.max(1, workers)));
  return { concurrency, maxWaiting: 32 * concurrency };
}

export function createHashQueue(options: HashQueueOptions): HashQueue {
  let running = 0;
  const waiting: Array<() => void> = [];
  const release = (): void => {
    running--;
    const next = waiting.shift();
    if (next !== undefined) {
      running++;
      next();
    }
  };
  return {
    async run(task) {
      if (running >= options.concurrency) {
        if (waiting.length >= options.maxWaiting) throw new UnavailableError('busy');
        await new Promise<void>((resolve) => waiting.push(resolve));
      } else {
        running++;
      }
      try {
        return await task();
      } finally {
        release();
      }
    },
    get running() {
      return running;
    },
    get waiting() {
      return waiting.length;
    },
  };
}
