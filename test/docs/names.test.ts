/**
 * The documents (README.md, docs/**, examples/**, src/client/README.md) name only audit events, actions,
 * configuration items and failure codes that the code has: an alert or a webhook receiver built from the docs must
 * match what the logs say.
 *
 * How a name is recognised in prose (fenced code blocks are left to test/docs/code-blocks.test.ts): it is written in
 * backticks, alone, and
 *  1. looks like an event: dotted, lower case, its first part the first part of a catalogued event (`user.locked`,
 *     `policy.*`), not a file name → it must be an event of src/log/audit-catalogue.ts (a `*` matches any rest);
 *  2. or is called an event: it stands, alone or in a list of backticked names joined by commas, "and" or "or",
 *     right before "event(s)"/"audit event(s)" or right after "event(s)", "audited (as)", "audit log says" →
 *     it must be an event;
 *  3. or looks like an action: hyphenated, its first part the first part of an action (`user-`, `session-`…) →
 *     it must be an action of src/protocol/actions;
 *  4. or is called a failure code: snake_case, alone or in such a list right after "failure(s)", "code(s)",
 *     "fails with", "refused with", "failure_reason" (with an optional "(", ":" or "e.g.") →
 *     it must be a code of src/protocol/failure-codes.ts;
 *  5. or is an option or a variable: `--word` (one word, as every item's option is) must be an item's option in
 *     src/config/confvars.json or a flag the code's own command lines know (the code holds `'word'` or
 *     `--word`); `AUTHSVC_…` must be an item's variable or one the code reads (tests, bench, CI).
 * ALLOWED lists the few names these shapes take by mistake, each with its reason.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AUDIT_EVENTS } from '../../src/log/audit-catalogue.js';
import { PKG_DIR, SHIPPED_CONFVARS } from '../../src/package-dir.js';
import { actionNames, FAILURE_CODES } from '../../src/protocol/index.js';

/** Names the rules recognise by mistake, with why. */
const ALLOWED: Readonly<Record<string, string>> = {
  'user.id': "a path of the policy's rule language (docs/policy.md), not an event",
  'user.role': "a path of the policy's rule language (docs/policy.md), not an event",
  'user.constructor': "a path of the policy's rule language (docs/policy.md): the prototype key it refuses",
  exit: "a Node.js process's event, not an audit event",
  query: "knex's event (its statement log), not an audit event",
  failure_reason: 'the reply item that carries a failure code\'s text ("on failure `failure_reason` is…")',
};

const FILE = /\.(ts|js|mjs|cjs|json|md|yaml|yml|sqlite|sqlite-wal|sqlite-shm|env|py|html|css|txt|svg|png)$/;

/** Every document the rule covers, relative to the repository. */
function documents(): string[] {
  const under = (dir: string): string[] =>
    readdirSync(join(PKG_DIR, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.md') && !f.split('/').includes('node_modules'))
      .map((f) => `${dir}/${f}`);
  return [
    'README.md',
    ...under('docs'),
    ...under('examples').filter((f) => f.endsWith('/README.md')),
    'src/client/README.md',
  ].sort();
}

/** The code's text (src, scripts, bench, tests, CI), where an option or variable the docs name must appear. */
function codeText(): string {
  const parts: string[] = [readFileSync(join(PKG_DIR, '.ci', 'run'), 'utf8')];
  for (const dir of ['src', 'scripts', 'bench', 'test']) {
    for (const f of readdirSync(join(PKG_DIR, dir), { recursive: true, encoding: 'utf8' })) {
      if (/\.(ts|mjs|js|json|sh)$/.test(f) && f !== 'docs/names.test.ts')
        parts.push(readFileSync(join(PKG_DIR, dir, f), 'utf8'));
    }
  }
  return parts.join('\n');
}

interface Confvar {
  readonly env: string | readonly string[] | null;
  readonly cmdline: string | null;
}
const confvars = Object.values(JSON.parse(readFileSync(SHIPPED_CONFVARS, 'utf8')) as Record<string, Confvar>);
const OPTIONS = new Set(confvars.map((c) => c.cmdline).filter((c): c is string => c !== null));
const VARIABLES = new Set(confvars.flatMap((c) => (c.env === null ? [] : typeof c.env === 'string' ? [c.env] : c.env)));
const EVENTS = Object.keys(AUDIT_EVENTS);
const EVENT_FAMILIES = new Set(EVENTS.map((e) => e.split('.')[0]));
const ACTIONS = new Set<string>(actionNames);
const ACTION_FAMILIES = new Set([...ACTIONS].map((a) => a.split('-')[0]));
const CODES = new Set<string>(FAILURE_CODES);

const isEvent = (name: string): boolean =>
  name.endsWith('.*') ? EVENTS.some((e) => e.startsWith(name.slice(0, -1))) : EVENTS.includes(name);

/** A run of backticked names joined by commas, "and", "or": the unit rules 2 and 4 look around. */
interface NameList {
  readonly names: readonly string[];
  /** Where the list starts in the text. */
  readonly index: number;
  readonly before: string;
  readonly after: string;
}

function listsOf(text: string): NameList[] {
  const lists: NameList[] = [];
  const LIST = /`[^`\s]+`(?:(?:,\s*|\s+and\s+|\s+or\s+|,\s+and\s+|,\s+or\s+)`[^`\s]+`)*/g;
  for (const m of text.matchAll(LIST)) {
    const names = [...m[0].matchAll(/`([^`\s]+)`/g)].map((n) => n[1] ?? '');
    lists.push({ names, index: m.index, before: text.slice(0, m.index), after: text.slice(m.index + m[0].length) });
  }
  return lists;
}

const CALLED_EVENT_AFTER = /^\s+(?:audit\s+)?events?\b/i;
const CALLED_EVENT_BEFORE = /\b(?:events?|audited(?:\s+as)?|audit log says)\s*\(?\s*$/i;
const CALLED_CODE_BEFORE = /\b(?:failures?|codes?|fails with|refused with|failure_reason)\s*(?:\(|:|\(e\.g\.)?\s*$/i;

/** The prose paragraphs of a document (code blocks left out), each with the line it starts on. */
function paragraphs(text: string): { readonly line: number; readonly text: string }[] {
  let fenced = false;
  const lines = text.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
  const found: { line: number; text: string }[] = [];
  lines.forEach((line, i) => {
    const last = found.at(-1);
    if (line.trim() === '') return;
    if (last !== undefined && lines[i - 1]?.trim() !== '') last.text += `\n${line}`;
    else found.push({ line: i + 1, text: line });
  });
  return found;
}

/** What is wrong with the names a paragraph uses, each with the line (from 0) of the list that holds it. */
function problemsOf(text: string, code: () => string): { readonly line: number; readonly problem: string }[] {
  const problems: { line: number; problem: string }[] = [];
  for (const list of listsOf(text)) {
    const line = list.before.split('\n').length - 1;
    const problem = (what: string): number => problems.push({ line, problem: what });
    const calledEvent = CALLED_EVENT_AFTER.test(list.after) || CALLED_EVENT_BEFORE.test(list.before);
    const calledCode = CALLED_CODE_BEFORE.test(list.before);
    for (const name of list.names) {
      if (name in ALLOWED || FILE.test(name)) continue;
      const dotted = /^[a-z][a-z0-9-]*(\.[a-z0-9*-]+)+$/.test(name);
      if (dotted && EVENT_FAMILIES.has(name.split('.')[0]) && !isEvent(name))
        problem(`\`${name}\` looks like an audit event, and there is none of that name`);
      else if (calledEvent && !isEvent(name))
        problem(`\`${name}\` is called an audit event, and there is none of that name`);
      else if (
        /^[a-z]+(-[a-z0-9]+)+$/.test(name) &&
        ACTION_FAMILIES.has(name.split('-')[0]) &&
        !ACTIONS.has(name) &&
        !calledEvent
      )
        problem(`\`${name}\` looks like an action, and there is none of that name`);
      else if (calledCode && /^[a-z]+(_[a-z0-9]+)+$/.test(name) && !CODES.has(name))
        problem(`\`${name}\` is called a failure code, and there is none of that name`);
      else if (/^--[a-z]+(=\S*)?$/.test(name)) {
        const option = name.slice(2).split('=')[0] ?? '';
        if (!OPTIONS.has(option) && !code().includes(`'${option}'`) && !code().includes(`--${option}`))
          problem(`\`${name}\` is no item's option and no flag the code knows`);
      } else if (/^AUTHSVC_[A-Z0-9_]+$/.test(name) && !VARIABLES.has(name) && !code().includes(name))
        problem(`\`${name}\` is no item's variable and the code reads no such variable`);
    }
  }
  return problems;
}

let cachedCode: string | undefined;
const code = (): string => (cachedCode ??= codeText());

describe('the names the documents use', () => {
  it('are audit events, actions, configuration items and failure codes the code has', () => {
    const docs = documents();
    assert.ok(docs.length >= 20 && docs.includes('docs/operations/rate-limits.md'), docs.join(', '));
    const found = docs.flatMap((doc) =>
      paragraphs(readFileSync(join(PKG_DIR, doc), 'utf8')).flatMap((p) =>
        problemsOf(p.text, code).map(({ line, problem }) => `${doc}:${p.line + line}: ${problem}`),
      ),
    );
    assert.deepEqual(
      found,
      [],
      'name what the code has (docs/events.md lists the events, docs/actions.md the actions)',
    );
  });

  it('are recognised by the rules above, whatever their kind (the retired names among them)', () => {
    const wrong = (text: string): number => problemsOf(text, code).length;
    // The retired event names, as the documents wrote them.
    assert.equal(wrong('and emits one `lockout` audit event.'), 1);
    assert.equal(wrong('Audit events `user-lock` and\n`user-unlock` record it.'), 2);
    assert.equal(wrong('Refusals are logged and audited (`rate-limited`) at'), 1);
    assert.equal(wrong('the audit log says `email-sent` with'), 1);
    assert.equal(wrong('a `refresh-token-reuse` audit event is recorded'), 1);
    assert.equal(wrong('alert on `ratelimit.exceeded`'), 1);
    // An action, a failure code and configuration names the code lacks.
    assert.equal(wrong('call `user-unlock` with'), 1);
    assert.equal(wrong('it fails with `account_locked`'), 1);
    assert.equal(wrong('set `--lockouttime` or `AUTHSVC_LOCKOUTTIME`'), 2);
    // What the code has passes, in the same places.
    assert.equal(wrong('emits one `account.locked-out` audit event; `user-lock` is an action'), 0);
    assert.equal(wrong('Audit events `user.locked` and `user.unlocked`, `policy.*`'), 0);
    assert.equal(wrong('audited (`ratelimit.hit`); it fails with `temporarily_locked`'), 0);
    assert.equal(wrong('set `--userlocktime` or `AUTHSVC_USERLOCKTIME`; the error kind `rate-limited`'), 0);
  });
});
