/** Reads a child's output until a pattern appears (e.g. the line a server prints once it listens). */
import type { Readable } from 'node:stream';

/**
 * Resolves with the first match of `pattern` in what `stream` prints. Before: reads chunks into a buffer
 * and searches it. It must stop there: a server's stdout goes on with a log line per request, and a
 * listener left behind would search an ever-growing buffer at every chunk — quadratic work done in the
 * load generator, which shares the cores with the server it measures.
 */
export function firstMatch(stream: Readable, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const onData = (chunk: Buffer): void => {
      buffered += chunk.toString();
      const match = pattern.exec(buffered);
      if (match === null) return;
      stream.off('data', onData);
      stream.off('end', onEnd);
      // Keep the pipe drained without reading it, or the child would block on a full pipe.
      stream.resume();
      resolve(match);
    };
    const onEnd = (): void => {
      stream.off('data', onData);
      reject(new Error(`the output ended before ${String(pattern)} appeared`));
    };
    stream.on('data', onData);
    stream.once('end', onEnd);
  });
}
