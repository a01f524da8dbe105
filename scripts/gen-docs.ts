/**
 * Writes docs/actions.md (from the action registry and the error catalogue), docs/configuration.md
 * (from the configuration-variables file), docs/events.md (from the audit-event catalogue) and
 * docs/schemas/actions.schema.json (from the declarations),
 * so the reference cannot drift from the code. `npm test` fails when any of them is stale.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfVars } from '../src/config/confvars.js';
import { SHIPPED_CONFVARS, PKG_DIR } from '../src/package-dir.js';
import { actionsMarkdown } from '../src/docs/actions-doc.js';
import { actionsJsonSchemaText } from '../src/docs/actions-schema.js';
import { configurationMarkdown } from '../src/docs/configuration-doc.js';
import { eventsMarkdown } from '../src/docs/events-doc.js';

writeFileSync(join(PKG_DIR, 'docs', 'actions.md'), actionsMarkdown());
writeFileSync(
  join(PKG_DIR, 'docs', 'configuration.md'),
  configurationMarkdown(loadConfVars(SHIPPED_CONFVARS, PKG_DIR)),
);
writeFileSync(join(PKG_DIR, 'docs', 'events.md'), eventsMarkdown());
mkdirSync(join(PKG_DIR, 'docs', 'schemas'), { recursive: true });
writeFileSync(join(PKG_DIR, 'docs', 'schemas', 'actions.schema.json'), actionsJsonSchemaText());
console.log('wrote docs/actions.md, docs/configuration.md, docs/events.md and docs/schemas/actions.schema.json');
