/**
 * Writes docs/actions.md from the action registry (schemas, messages) and the error catalogue, so the
 * reference cannot drift from the code. `npm test` fails when the file is stale.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { actionsMarkdown } from '../src/docs/actions-doc.js';
import { PKG_DIR } from '../src/config/paths.js';

writeFileSync(join(PKG_DIR, 'docs', 'actions.md'), actionsMarkdown());
console.log('wrote docs/actions.md');
