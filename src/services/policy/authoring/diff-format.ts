/**
 * A policy diff as Markdown a reviewer reads in a pull request: one table of access decisions (the
 * actions of one role, item, visibility and caller that changed the same way, on one row) and one of
 * limit decisions, each row saying what decides now.
 */
import type { AccessChange, PolicyDiff } from './diff.js';
import type { Explanation } from '../engine/decision.js';

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The check and the parts of the policy that decided; a rule's reason too. */
function decidedBy(explanation: Explanation): string {
  const where = explanation.policy.length > 0 ? ` ${explanation.policy.join(', ')}` : '';
  const rule = explanation.check.endsWith('-by-rule') ? ` "${explanation.reason}"` : '';
  return `${explanation.check}${where}${rule}`;
}

const CALLERS: Readonly<Record<string, string>> = {
  owner: 'owner (user 10 owns it)',
  shared: 'shared (user 10 listed)',
  everyone: 'everyone (user 2 listed)',
  other: 'other (shared with user 30)',
};

function groupAccess(changes: readonly AccessChange[]): Array<{ change: AccessChange; actions: string[] }> {
  const groups = new Map<string, { change: AccessChange; actions: string[] }>();
  for (const change of changes) {
    const key = [
      change.role,
      change.item,
      change.visibility,
      change.caller,
      change.after.allowed,
      decidedBy(change.before.explanation),
      decidedBy(change.after.explanation),
    ].join('\u0000');
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { change, actions: [change.action] });
    else group.actions.push(change.action);
  }
  return [...groups.values()];
}

export function formatDiff(diff: PolicyDiff, names: { before: string; after: string }): string {
  const lines: string[] = [];
  const n = diff.access.length;
  const m = diff.limits.length;
  lines.push(`# Policy diff: ${names.before} → ${names.after}`, '');
  lines.push(
    `${n} of ${diff.compared.access} access decisions and ${m} of ${diff.compared.limits} limit decisions differ.`,
  );
  if (n > 0) {
    lines.push('', '## Access', '');
    lines.push('| role | item | visibility | caller | actions | before | after | decided now by | decided before by |');
    lines.push('|---|---|---|---|---|---|---|---|---|');
    for (const { change, actions } of groupAccess(diff.access)) {
      const row = [
        change.role,
        change.item,
        change.visibility,
        CALLERS[change.caller] ?? change.caller,
        actions.join(', '),
        change.before.allowed ? 'allow' : 'deny',
        change.after.allowed ? '**allow**' : '**deny**',
        decidedBy(change.after.explanation),
        decidedBy(change.before.explanation),
      ];
      lines.push(`| ${row.map(cell).join(' | ')} |`);
    }
  }
  if (m > 0) {
    lines.push('', '## Limits', '');
    lines.push('| role | limit | value | before | after | decided now by |');
    lines.push('|---|---|---|---|---|---|');
    for (const change of diff.limits) {
      const row = [
        change.role,
        change.limit,
        String(change.value),
        change.before.passed ? 'pass' : 'fail',
        change.after.passed ? '**pass**' : '**fail**',
        `${change.after.explanation.check}: ${change.after.explanation.reason}`,
      ];
      lines.push(`| ${row.map(cell).join(' | ')} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}
