/**
 * EXPLAIN on each database, for the tests that statements read through indexes (docs/design.md#a-million-users).
 * Statements are captured as the store runs them (knex's `query` event; hot statements announce themselves there
 * too) and explained in ways that do not depend on the tables' sizes: PostgreSQL with every path but index scans,
 * sorts and nested loops priced out (so a scan remains only where no index can serve), MariaDB/MySQL by the indexes
 * it could use (`possible_keys`), SQLite by its plan (SEARCH through an index, not SCAN or an automatic index).
 */
import type { Knex } from 'knex';
import type { TestDatabase } from './databases.js';

export interface Statement {
  readonly sql: string;
  readonly bindings: readonly Knex.Value[];
}

interface QueryEvent {
  readonly sql: string;
  readonly bindings?: readonly Knex.Value[];
}

/** Calls `listen` with each statement knex runs until the returned function is called. */
export function listen(knex: Knex, listener: (statement: Statement) => void): () => void {
  const onQuery = (query: QueryEvent): void => {
    listener({ sql: query.sql, bindings: query.bindings ?? [] });
  };
  knex.on('query', onQuery);
  return () => {
    knex.off('query', onQuery);
  };
}

/** The statements knex ran for `work`. */
export async function captured(knex: Knex, work: () => Promise<unknown>): Promise<Statement[]> {
  const seen: Statement[] = [];
  const stop = listen(knex, (statement) => seen.push(statement));
  try {
    await work();
  } finally {
    stop();
  }
  return seen;
}

/**
 * Statements with no plan to check: transaction control, settings, pragmas, and inserts of given values (they
 * read no table).
 */
export function hasNoPlan(sql: string): boolean {
  return (
    /^\s*(begin|commit|rollback|savepoint|release|set|pragma|start transaction)\b/i.test(sql) ||
    (/^\s*insert\b/i.test(sql) && /\bvalues\s*\(/i.test(sql) && !/\bselect\b/i.test(sql))
  );
}

/** Runs `EXPLAIN` of `statement` with PostgreSQL's non-index paths priced out. The plan's lines. */
async function pgPlan(knex: Knex, { sql, bindings }: Statement, bitmaps: boolean): Promise<string[]> {
  return knex.transaction(async (trx) => {
    // Priced out: what remains is what no index can serve (the test's tables are small, the plans at scale are not).
    // A GIN index is read only through a bitmap: `bitmaps` keeps that path.
    for (const path of ['seqscan', ...(bitmaps ? [] : ['bitmapscan']), 'material', 'hashjoin', 'mergejoin'])
      await trx.raw(`SET LOCAL enable_${path} = off`);
    // The event gives PostgreSQL's own $1 placeholders, in order; knex.raw takes ?.
    const result = await trx.raw<{ rows: Array<{ 'QUERY PLAN': string }> }>(
      `EXPLAIN ${sql.replace(/\$\d+/g, '?')}`,
      bindings,
    );
    return result.rows.map((r) => r['QUERY PLAN']);
  });
}

interface MysqlRow {
  readonly table: string | null;
  readonly type: string | null;
  readonly possible_keys: string | null;
  readonly key: string | null;
  readonly Extra: string | null;
}

async function mysqlPlan(knex: Knex, { sql, bindings }: Statement): Promise<MysqlRow[]> {
  const [rows] = (await knex.raw(`EXPLAIN ${sql}`, bindings)) as [MysqlRow[]];
  return rows;
}

async function sqlitePlan(knex: Knex, { sql, bindings }: Statement): Promise<string[]> {
  const rows = await knex.raw<Array<{ detail: string }>>(`EXPLAIN QUERY PLAN ${sql}`, bindings);
  return rows.map((r) => r.detail);
}

/**
 * Whether the statement's plan finds its rows by `column` through an index: a condition on `column` in an index
 * search (SQLite, not an index SQLite builds for the one statement), an index condition (PostgreSQL), an index of
 * the column among those the statement could use (MariaDB/MySQL). The plan, to show when it is not.
 */
export async function indexedBy(
  knex: Knex,
  kind: TestDatabase['kind'],
  statement: Statement,
  column: string,
  { bitmaps = false }: { readonly bitmaps?: boolean } = {},
): Promise<{ readonly ok: boolean; readonly plan: string }> {
  const named = new RegExp(`\\b${column}\\b`);
  if (kind === 'sqlite') {
    const details = await sqlitePlan(knex, statement);
    const ok = details.some(
      (d) => /^SEARCH .* USING (COVERING )?INDEX /.test(d) && named.test(d.slice(d.indexOf('('))),
    );
    return { ok: ok && !details.some((d) => d.includes('AUTOMATIC')), plan: details.join('; ') };
  }
  if (kind === 'pg') {
    const lines = await pgPlan(knex, statement, bitmaps);
    return { ok: lines.some((line) => /Index Cond: /.test(line) && named.test(line)), plan: lines.join('\n') };
  }
  const rows = await mysqlPlan(knex, statement);
  // A unique index already read, at planning, that no row has the value: a lookup through that index.
  if (rows.length === 1 && /noticed after reading const tables/.test(rows[0]?.Extra ?? '')) {
    return { ok: true, plan: JSON.stringify(rows) };
  }
  const keys = rows.flatMap((r) => (r.possible_keys ?? '').split(','));
  return { ok: keys.some((key) => key.includes(`_${column}_`)), plan: JSON.stringify(rows) };
}

/** The names a statement's WITH clause defines: SQLite shows reading them as a SCAN, which is no table's. */
function cteNames(sql: string): Set<string> {
  return new Set(
    [...sql.matchAll(/(?:\bwith\s+(?:recursive\s+)?|,\s*)[`"]?(\w+)[`"]?\s+as\s*\(/gi)].map((m) => m[1] ?? ''),
  );
}

/** An equality among index conditions (`=`, `= ANY`, `IS NULL`), as opposed to ranges only. */
const EQUALITY = /(?<![<>!])=|\bIS NULL\b/i;

/** PostgreSQL's scan nodes that walk an index (or a table) without a bound: see `tableScans`. */
function pgWalks(lines: readonly string[]): string[] {
  const indent = (line: string): number => line.length - line.trimStart().length;
  const node = (line: string): string => line.trim().replace(/^->\s+/, '');
  const walks: string[] = [];
  lines.forEach((line, at) => {
    const name = node(line);
    if (name.startsWith('Seq Scan on ')) {
      walks.push(name);
      return;
    }
    if (!/^Index (Only )?Scan /.test(name)) return;
    // The node's own details: the lines below it, deeper than it, up to the next node.
    const details: string[] = [];
    for (const detail of lines.slice(at + 1)) {
      if (indent(detail) <= indent(line) || detail.trim().startsWith('->')) break;
      details.push(detail.trim());
    }
    const condition = details.find((d) => d.startsWith('Index Cond:'));
    if (condition !== undefined && EQUALITY.test(condition)) return;
    // A range (or the whole index) in order: bounded only when a LIMIT above stops it and every row read is kept.
    const limited = lines.slice(0, at).some((above) => indent(above) < indent(line) && node(above).startsWith('Limit'));
    if (!limited || details.some((d) => d.startsWith('Filter:')))
      walks.push(`${name} (${condition ?? 'no index condition'})`);
  });
  return walks;
}

/**
 * The plan of `statement` and the parts of it that read a whole table, or a range of an index with no bound: every
 * statement must be an index lookup (an equality on an index's leading columns) or a bounded index range.
 * - SQLite: a `SCAN` of a table or of a whole index (not of a CTE, a constant row or a subquery's result); an
 *   automatic index, which SQLite builds for the one statement because no index serves it; a `SEARCH` by ranges
 *   only (its plan does not show whether a LIMIT bounds it).
 * - PostgreSQL, with sequential scans, bitmaps, hash and merge joins and materialisation priced out: a `Seq Scan`,
 *   which remains only where no index can serve; an index scan with no equality in its index condition, unless a
 *   LIMIT above it stops it and it keeps every row it reads (no Filter).
 * - MariaDB/MySQL: a table read whole (`type` ALL, or `index`: every entry of an index) with no index it could use
 *   (`possible_keys` empty); with one, the tables here are small enough that a whole read may be cheaper, and the
 *   planner decides again at scale. Its plan does not tell an equality from a range: PostgreSQL's and SQLite's
 *   checks are the stricter ones.
 */
export async function tableScans(
  knex: Knex,
  kind: TestDatabase['kind'],
  statement: Statement,
): Promise<{ readonly plan: string; readonly scans: readonly string[] }> {
  if (kind === 'sqlite') {
    const details = await sqlitePlan(knex, statement);
    const ctes = cteNames(statement.sql);
    const scans = details.filter((d) => {
      if (d.includes('AUTOMATIC')) return true;
      const search = /^SEARCH \S+(?: USING .*?)?(?: \((.*)\))?$/.exec(d);
      if (search !== null) return !EQUALITY.test(search[1] ?? '');
      const scanned = /^SCAN (\S+)/.exec(d)?.[1];
      if (scanned === undefined || scanned === 'CONSTANT' || scanned.startsWith('(')) return false;
      return !ctes.has(scanned);
    });
    return { plan: details.join('\n'), scans };
  }
  if (kind === 'pg') {
    const lines = await pgPlan(knex, statement, false);
    return { plan: lines.join('\n'), scans: pgWalks(lines) };
  }
  const rows = await mysqlPlan(knex, statement);
  const scans = rows
    .filter((r) => (r.type === 'ALL' || r.type === 'index') && r.possible_keys === null)
    .filter((r) => r.table !== null && !/^<(derived|subquery|union)/.test(r.table))
    .map((r) => JSON.stringify(r));
  return { plan: rows.map((r) => JSON.stringify(r)).join('\n'), scans };
}
