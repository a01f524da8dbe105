import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { firstMatch } from '../../bench/lib/first-match.js';

describe('bench: reading a server’s start-up line', () => {
  it('answers the first match, even when it arrives split over chunks', async () => {
    const out = new PassThrough();
    const found = firstMatch(out, /"listening":(\d+)/);
    out.write('{"level":"info","listen');
    out.write('ing":4321}\n');
    assert.equal((await found)[1], '4321');
  });

  it('stops reading once it has matched, so the log lines that follow cost the load generator nothing', async () => {
    const out = new PassThrough();
    const found = firstMatch(out, /"startup_ms":(\d+)/);
    out.write('{"startup_ms":350}\n');
    await found;
    assert.equal(out.listenerCount('data'), 0, 'no data listener left on the stream');
    assert.equal(out.listenerCount('end'), 0, 'no end listener left on the stream');
  });

  it('fails when the output ends without the line', async () => {
    const out = new PassThrough();
    const found = firstMatch(out, /"listening":(\d+)/);
    out.end('{"level":"error"}\n');
    out.resume();
    await assert.rejects(found, /ended before/);
  });
});
