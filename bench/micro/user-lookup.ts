/**
 * How long the administration lookups take on a large users table: user-lookup-match on extra_info
 * (prefiltered in the database without an index here: a rare value reads the whole table), on a column,
 * and user-list pages, over the real encrypted protocol of an in-process server.
 *   npx tsx bench/micro/user-lookup.ts [users=50000] [database=sqlite|pg|mysql]
 * pg and mysql use a fresh database on the server of AUTHSVC_TEST_PGURL / AUTHSVC_TEST_MYSQLURL (default
 * the local test servers), dropped afterwards.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { timeToDb } from '../../src/services/store/dialect.js';
import { parseDatabaseUrl } from '../../src/services/store/url.js';
import type { DatabaseTarget, MysqlTarget, PgTarget } from '../../src/services/store/url.js';
import { adminQuery } from '../../test/helpers/admin-sql.js';
import { startTestServer } from '../../test/helpers/server.js';
import { sqlOf } from '../../test/helpers/sql.js';

const users = Number(process.argv[2] ?? 50_000);
const database = process.argv[3] ?? 'sqlite';
const dir = mkdtempSync(join(tmpdir(), 'authsvc-bench-'));

async function target(): Promise<{ target: DatabaseTarget; drop: () => Promise<void> }> {
  if (database === 'sqlite')
    return { target: { dialect: 'sqlite', filename: join(dir, 'bench.sqlite') }, drop: async () => {} };
  const kind = database as 'pg' | 'mysql';
  const url =
    process.env[kind === 'pg' ? 'AUTHSVC_TEST_PGURL' : 'AUTHSVC_TEST_MYSQLURL'] ??
    (kind === 'pg' ? 'postgresql://postgres@127.0.0.1:5432/test' : 'mysql://root@127.0.0.1:3306/test');
  const parsed = parseDatabaseUrl(url, dir);
  if (!parsed.ok || parsed.target.dialect === 'sqlite') throw new Error(`not a server URL: ${url}`);
  const admin: PgTarget | MysqlTarget = parsed.target;
  const name = `authsvc_bench_${process.pid}`;
  const quoted = kind === 'pg' ? `"${name}"` : `\`${name}\``;
  await adminQuery(admin, `CREATE DATABASE ${quoted}`);
  return {
    target: { ...admin, database: name },
    drop: () => adminQuery(admin, `DROP DATABASE IF EXISTS ${quoted}${kind === 'pg' ? ' WITH (FORCE)' : ''}`),
  };
}

const db = await target();
const server = await startTestServer({ database: db.target, basedir: dir });
try {
  const store = server.app.store;
  const now = timeToDb(store.dialect, server.clock.now());
  const loadStarted = performance.now();
  for (let from = 0; from < users; from += 500) {
    await sqlOf(store)('users').insert(
      Array.from({ length: Math.min(500, users - from) }, (_, i) => {
        const id = 10 + from + i;
        return {
          user_id: id,
          system_id: randomUUID(),
          full_name: `Bench user ${id}`,
          email: `bench${id}@example.org`,
          password: 'x',
          email_verified: true,
          is_active: true,
          user_role: id % 10 === 0 ? 'staff' : 'authenticated',
          extra_info: JSON.stringify({
            org: `org-${id % 100}`,
            tags: ['a', id % 7],
            n: id,
            avatar: 'https://example.org/a.png',
          }),
          created_on: now,
          last_updated: now,
          failed_login_tries: 0,
        };
      }),
    );
  }
  // As autovacuum would have by now on a real table: without statistics PostgreSQL sorts the whole table per page.
  if (store.dialect === 'pg') await sqlOf(store).raw('ANALYZE users');
  console.log(`${users} users on ${database}, loaded in ${Math.round(performance.now() - loadStarted)} ms`);

  const cases: Array<[string, Parameters<typeof server.call>]> = [
    [
      'lookup-match extra_info, one match (whole table)',
      ['user-lookup-match', { by: 'extra_info', match: { n: users } }],
    ],
    ['lookup-match extra_info, 1% match', ['user-lookup-match', { by: 'extra_info', match: { org: 'org-42' } }]],
    [
      'lookup-match extra_info, first 1,000 of many',
      ['user-lookup-match', { by: 'extra_info', match: { tags: ['a', 3] } }],
    ],
    ['lookup-match user_role (1,000 of 10%)', ['user-lookup-match', { by: 'user_role', match: 'staff' }]],
    ['lookup-match email', ['user-lookup-match', { by: 'email', match: 'bench4242@example.org' }]],
    ['user-list, first page of 1,000', ['user-list', { user_id: null }]],
    ['user-lookup-email', ['user-lookup-email', { email: 'Bench4242@example.org' }]],
  ];
  for (const [label, [action, body]] of cases) {
    const times: number[] = [];
    let found = 0;
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const reply = await server.call(action, body);
      times.push(performance.now() - started);
      if (!reply.success) throw new Error(`${label}: ${reply.failure_reason}`);
      const info = (reply.response as { user_info?: unknown }).user_info;
      found = Array.isArray(info) ? info.length : 1;
    }
    times.sort((a, b) => a - b);
    console.log(`${label.padEnd(52)} median ${(times[2] ?? 0).toFixed(1).padStart(8)} ms  (${found} users)`);
  }
} finally {
  await server.close();
  await db.drop();
  rmSync(dir, { recursive: true, force: true });
}
