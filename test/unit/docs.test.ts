import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PKG_DIR, SHIPPED_CONFVARS } from '../../src/package-dir.js';
import { actionsMarkdown } from '../../src/docs/actions-doc.js';
import { loadConfVars } from '../../src/config/confvars.js';
import { configurationMarkdown } from '../../src/docs/configuration-doc.js';
import { eventsMarkdown } from '../../src/docs/events-doc.js';
import { auditEventNames } from '../../src/log/audit-catalogue.js';
import { actionNames } from '../../src/protocol/index.js';

describe('docs/actions.md', () => {
  it('is what `npm run docs` generates from the registry (run it after changing an action)', () => {
    assert.equal(readFileSync(join(PKG_DIR, 'docs', 'actions.md'), 'utf8'), actionsMarkdown());
  });
  it('documents every action', () => {
    const text = actionsMarkdown();
    for (const name of actionNames) assert.ok(text.includes(`## ${name}\n`), name);
  });
});

describe('docs/configuration.md', () => {
  it('is what `npm run docs` generates from confvars.json', () => {
    const expected = configurationMarkdown(loadConfVars(SHIPPED_CONFVARS, PKG_DIR));
    assert.equal(readFileSync(join(PKG_DIR, 'docs', 'configuration.md'), 'utf8'), expected);
  });
});

describe('docs/events.md', () => {
  it('is what `npm run docs` generates from the audit-event catalogue (run it after changing an event)', () => {
    assert.equal(readFileSync(join(PKG_DIR, 'docs', 'events.md'), 'utf8'), eventsMarkdown());
  });
  it('lists every event, and operations.md links to it', () => {
    const text = readFileSync(join(PKG_DIR, 'docs', 'events.md'), 'utf8');
    for (const name of auditEventNames) assert.ok(text.includes(`| \`${name}\` |`), name);
    assert.ok(readFileSync(join(PKG_DIR, 'docs', 'operations.md'), 'utf8').includes('(events.md)'));
  });
});
