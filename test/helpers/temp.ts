/**
 * A temporary directory of the test file's own, removed when the file (or the enclosing suite) ends.
 * Call it at the top level of a file or in a describe(), where node:test's after() belongs to them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

export function tempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `authsvc-${name}-`));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
