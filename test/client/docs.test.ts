import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AUTHSVC_ERROR_KINDS } from '../../src/client/index.js';
import { PKG_DIR } from '../../src/package-dir.js';

describe('docs/client.md', () => {
  it('documents every kind of AuthsvcError, and no other', () => {
    const text = readFileSync(join(PKG_DIR, 'docs', 'client.md'), 'utf8');
    const rows = [...text.matchAll(/^\| `([a-z-]+)` +\|/gm)].map((m) => m[1]).filter((kind) => kind !== 'kind');
    assert.deepEqual(rows, [...AUTHSVC_ERROR_KINDS]);
  });
});
