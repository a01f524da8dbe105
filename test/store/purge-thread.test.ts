import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { purgeOnThread } from '../../src/services/store/purge-thread.js';

/** docs/design.md#sessions-and-the-purge: SQLite's purge on a thread of its own. */
describe('the SQLite purge thread', () => {
  it('rejects with the reason when the purge fails there, and ends the thread', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'authsvc-purge-thread-'));
    try {
      // A folder where the database file should be: the thread's connection cannot open it.
      await assert.rejects(purgeOnThread({ dialect: 'sqlite', filename: dir }, Date.now(), {}), Error);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
