/**
 * The writer under a slow reader: it never blocks, keeps a bounded amount, drops and counts past it,
 * says how many lines it dropped once the stream drains, and survives a reader that went away.
 * The slow reader is a real Writable whose writes complete only when the test lets them.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { setImmediate } from 'node:timers/promises';
import { createLineWriter } from '../../src/log/writer.js';

/** A stream with a 1-byte high-water mark whose writes finish only on `release()`. */
function slowReader(): Writable & { received: string[]; release: () => void } {
  const held: Array<() => void> = [];
  const received: string[] = [];
  const stream = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _encoding, done) {
      received.push(chunk.toString('utf8'));
      held.push(done);
    },
  });
  const release = (): void => {
    for (const done of held.splice(0)) done();
  };
  return Object.assign(stream, { received, release });
}

const line = (i: number): string => `${JSON.stringify({ i, pad: 'x'.repeat(80) })}\n`;

describe('the log writer', () => {
  it('buffers up to its bound while the stream is full, then drops, counts and reports once drained', async () => {
    const stream = slowReader();
    const writer = createLineWriter(stream, { maxBufferedBytes: 1000, droppedLine: (n) => `DROPPED ${n}\n` });
    writer.write(line(0));
    await setImmediate(); // the first batch goes out; the stream is now full
    for (let i = 1; i <= 100; i++) writer.write(line(i)); // ~100 bytes each: about 10 fit under the bound
    assert.ok(writer.dropped > 80, `dropped ${writer.dropped}`);
    const dropped = writer.dropped;
    const kept = 100 - dropped;
    stream.release(); // the reader catches up: 'drain'
    await setImmediate();
    stream.release();
    await setImmediate();
    const text = stream.received.join('');
    assert.equal(text.match(/DROPPED/g)?.length, 1, 'reported once');
    assert.ok(text.includes(`DROPPED ${dropped}\n`));
    assert.equal(text.split('\n').filter((l) => l.startsWith('{')).length, 1 + kept, 'every kept line arrives');
    assert.ok(text.indexOf('DROPPED') < text.indexOf('"i":1,'), 'the report comes before the lines kept');
    assert.equal(writer.dropped, 0);
  });

  it('flushes: resolves once every line is handed over, or after its time limit when nobody reads', async () => {
    const stream = slowReader();
    const writer = createLineWriter(stream, { droppedLine: (n) => `DROPPED ${n}\n` });
    writer.write(line(1));
    let flushed = false;
    const flushing = writer.flush(60_000).then(() => (flushed = true));
    await setImmediate();
    assert.equal(flushed, false, 'the write has not completed yet');
    stream.release();
    await flushing;
    assert.equal(stream.received.join(''), line(1));

    const stuck = slowReader();
    const stuckWriter = createLineWriter(stuck, { droppedLine: (n) => `DROPPED ${n}\n` });
    stuckWriter.write(line(2));
    await stuckWriter.flush(50); // resolves although the reader never reads
  });

  it('keeps going when the reader is gone (EPIPE): no throw, nothing written any more', async () => {
    let calls = 0;
    const stream = new Writable({
      write(_chunk, _encoding, done) {
        calls += 1;
        done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    const writer = createLineWriter(stream, { droppedLine: (n) => `DROPPED ${n}\n` });
    writer.write(line(1));
    await setImmediate();
    await setImmediate();
    writer.write(line(2));
    await writer.flush(1000);
    assert.equal(calls, 1);
  });
});
