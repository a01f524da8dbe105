/**
 * Writes docs/actions.md (from the action registry and the error catalogue) and docs/configuration.md
 * (from the configuration-variables file), so the reference cannot drift from the code. `npm test`
 * fails when either is stale.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfVars } from '../src/config/confvars.js';
import { SHIPPED_CONFVARS } from '../src/config/paths.js';
import { PKG_DIR } from '../src/package-dir.js';
import { actionsMarkdown } from '../src/docs/actions-doc.js';
import { configurationMarkdown } from '../src/docs/configuration-doc.js';

writeFileSync(join(PKG_DIR, 'docs', 'actions.md'), actionsMarkdown());
writeFileSync(
  join(PKG_DIR, 'docs', 'configuration.md'),
  configurationMarkdown(loadConfVars(SHIPPED_CONFVARS, PKG_DIR)),
);
console.log('wrote docs/actions.md and docs/configuration.md');
