/**
 * Where log lines go: a batching, non-blocking writer over one stream (standard output, usually).
 *
 * Lines are collected and written once per turn of the event loop (setImmediate), so a busy server
 * makes one write() for many request lines instead of one each. It never blocks the event loop: no
 * synchronous write, ever. When the reader is slow and the stream says it is full (write() returns
 * false), lines wait in memory up to a bound; past it they are dropped and counted, and once the
 * stream drains one line says how many were lost, because a log that silently misses lines is worse
 * than one that admits it. A stream that failed (EPIPE: nobody reads any more) drops everything and
 * no longer throws.
 *
 * Every logger writing to one stream shares its writer (a WeakMap), so their lines keep their order
 * and one count covers them all.
 */
import type { Writable } from 'node:stream';

/** What may wait while the stream is full, besides the chunk the stream itself holds. */
export const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

export interface LineWriter {
  /** Queues one line (ending in "\n"). Never blocks, never throws. */
  write(line: string): void;
  /**
   * Resolves once every line queued so far has been handed to the operating system (or dropped), or
   * after `timeoutMs` (a reader that never reads must not keep a stopping process alive).
   */
  flush(timeoutMs?: number): Promise<void>;
  /** Lines dropped since the last report (reported once the stream drains). */
  readonly dropped: number;
}

export interface WriterOptions {
  readonly maxBufferedBytes?: number;
  /** The line that reports `count` lines dropped, in the logger's own format. */
  readonly droppedLine: (count: number) => string;
}

const writers = new WeakMap<Writable, LineWriter>();

/** The writer of `stream`, made on first use; later options are ignored (one writer per stream). */
export function writerFor(stream: Writable, options: WriterOptions): LineWriter {
  const existing = writers.get(stream);
  if (existing !== undefined) return existing;
  const writer = createLineWriter(stream, options);
  writers.set(stream, writer);
  return writer;
}

/** Flushes the writers of standard output and standard error, if any: before a process exits. */
export function flushStdio(timeoutMs = 2000): Promise<void> {
  const pending = [process.stdout, process.stderr].flatMap((stream) => writers.get(stream)?.flush(timeoutMs) ?? []);
  return Promise.all(pending).then(() => undefined);
}

export function createLineWriter(stream: Writable, options: WriterOptions): LineWriter {
  const max = options.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
  let pending: string[] = [];
  let pendingBytes = 0;
  let scheduled = false;
  /** The stream said it is full; we wait for 'drain'. */
  let blocked = false;
  /** The stream failed (e.g. EPIPE): nothing can be written any more. */
  let broken = false;
  let dropped = 0;
  /** Writes whose callback has not run yet: data still in Node's hands, not the OS's. */
  let inFlight = 0;
  const idle: Array<() => void> = [];

  const settle = (): void => {
    if (inFlight > 0 || blocked || pending.length > 0) return;
    for (const resolve of idle.splice(0)) resolve();
  };

  const written = (): void => {
    inFlight -= 1;
    settle();
  };

  const writeNow = (): void => {
    scheduled = false;
    if (blocked || broken || pending.length === 0) return settle();
    const chunk = pending.length === 1 ? (pending[0] ?? '') : pending.join('');
    pending = [];
    pendingBytes = 0;
    inFlight += 1;
    if (!stream.write(chunk, written)) {
      blocked = true;
      stream.once('drain', onDrain);
    }
  };

  function onDrain(): void {
    blocked = false;
    if (dropped > 0) {
      const line = options.droppedLine(dropped);
      dropped = 0;
      pending.unshift(line);
      pendingBytes += line.length;
    }
    writeNow();
  }

  stream.on('error', () => {
    // EPIPE and the like: the reader is gone. Logging must not take the service down with it.
    broken = true;
    blocked = false;
    pending = [];
    pendingBytes = 0;
    inFlight = 0;
    settle();
  });

  return {
    write(line) {
      if (broken) return;
      // Bounded: string length counts UTF-16 units, close enough to bytes for log lines.
      if (pendingBytes + line.length > max) {
        if (!blocked) writeNow(); // a large batch goes now, without waiting for the turn to end
        if (blocked) {
          dropped += 1;
          return;
        }
      }
      pending.push(line);
      pendingBytes += line.length;
      if (!scheduled && !blocked) {
        scheduled = true;
        setImmediate(writeNow);
      }
    },
    flush(timeoutMs = 2000) {
      writeNow();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        idle.push(() => {
          clearTimeout(timer);
          resolve();
        });
        settle();
      });
    },
    get dropped() {
      return dropped;
    },
  };
}
