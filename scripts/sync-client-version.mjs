/**
 * `npm version`'s "version" script (package.json): gives src/client/package.json the root's new version, so the
 * client (published as @authsvc/client) is never versioned by hand; test/client/package.test.ts checks that the
 * two agree. Usage: node scripts/sync-client-version.mjs [REPOSITORY_DIR] (default: this repository).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url));
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const clientFile = join(root, 'src', 'client', 'package.json');
const client = readFileSync(clientFile, 'utf8');
// Only the version line changes, so the file keeps its layout.
const synced = client.replace(/^( {2}"version": )"[^"]*"/m, `$1${JSON.stringify(version)}`);
if (synced === client && !client.includes(`"version": ${JSON.stringify(version)}`)) {
  throw new Error(`${clientFile} has no top-level "version" line`);
}
writeFileSync(clientFile, synced);
