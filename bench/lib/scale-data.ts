/**
 * `--scale N`'s database: N users, 2N sessions (half of them expired), and at a tenth of the users session API
 * keys, no-session API keys and their refresh tokens (half expired), written by INSERT … SELECT over a series of
 * numbers in the database itself, so a million users take a minute, not an hour of round trips.
 */
import type { Knex } from 'knex';
import { timeToDb } from '../../src/services/store/dialect.js';
import type { Dialect } from '../../src/services/store/dialect.js';

/** Users of the scale data have ids from here on; the accounts a server seeds come first. */
const SCALE_FIRST_ID = 1001;

/** Rows per statement: one transaction of a million rows would hold every lock and the whole undo log. */
const CHUNK = 100_000;

const DAY = 86_400_000;

interface Sql {
  /** `FROM …` giving the numbers from..to as column n. */
  series(from: number, to: number): string;
  cat(...parts: string[]): string;
  /** A 64-character text that is unique per n and per prefix letter. */
  hash(prefix: string, n: string): string;
  text(n: string): string;
}

function sqlFor(dialect: Dialect): Sql {
  switch (dialect) {
    case 'pg':
      return {
        series: (from, to) => `FROM generate_series(${from}, ${to}) AS g(n)`,
        cat: (...parts) => parts.join(' || '),
        hash: (prefix, n) => `'${prefix}' || lpad((${n})::text, 63, '0')`,
        text: (n) => `(${n})::text`,
      };
    case 'mysql':
      return {
        // MariaDB's sequence engine (MySQL would need a recursive CTE).
        series: (from, to) => `FROM (SELECT seq AS n FROM seq_${from}_to_${to}) AS g`,
        cat: (...parts) => `CONCAT(${parts.join(', ')})`,
        hash: (prefix, n) => `CONCAT('${prefix}', LPAD(${n}, 63, '0'))`,
        text: (n) => `CAST(${n} AS CHAR)`,
      };
    case 'sqlite':
      return {
        series: (from, to) =>
          `FROM (WITH RECURSIVE s(n) AS (SELECT ${from} UNION ALL SELECT n + 1 FROM s WHERE n < ${to}) SELECT n FROM s)`,
        cat: (...parts) => parts.join(' || '),
        hash: (prefix, n) => `'${prefix}' || printf('%063d', ${n})`,
        text: (n) => `CAST(${n} AS TEXT)`,
      };
  }
}

/** Runs `insert(from, to)` over 1..count in chunks, reporting each. */
async function chunked(
  count: number,
  insert: (from: number, to: number) => Promise<unknown>,
  progress: (done: number) => void,
): Promise<void> {
  for (let from = 1; from <= count; from += CHUNK) {
    const to = Math.min(count, from + CHUNK - 1);
    await insert(from, to);
    progress(to);
  }
}

/** Writes the scale data for `users` users into a migrated, seeded database; `nowMs` splits expired from live. */
export async function writeScaleData(
  knex: Knex,
  dialect: Dialect,
  users: number,
  nowMs: number,
  say: (line: string) => void,
): Promise<void> {
  const sql = sqlFor(dialect);
  const t = (ms: number): Knex.Value => timeToDb(dialect, ms) as Knex.Value;
  const past = t(nowMs - DAY);
  const future = t(nowMs + 30 * DAY);
  const created = t(nowMs - 400 * DAY);
  const userOf = (n: string): string => `${SCALE_FIRST_ID} + ((${n} - 1) % ${users})`;
  // PostgreSQL types a CASE of two placeholders as text.
  const time = dialect === 'pg' ? '?::timestamptz' : '?';
  const expiry = (n: string): string => `CASE WHEN ${n} % 2 = 0 THEN ${time} ELSE ${time} END`;
  const keys = Math.max(1, Math.floor(users / 10));
  const step = (table: string) => (done: number) => say(`${table}: ${done.toLocaleString('en')}`);

  await chunked(
    users,
    (from, to) =>
      knex.raw(
        `INSERT INTO users (user_id, system_id, full_name, password, email, email_verified, is_active, user_role,
           extra_info, created_on, last_updated, failed_login_tries)
         SELECT ${SCALE_FIRST_ID - 1} + n, ${sql.cat("'scale-'", sql.text('n'))}, ${sql.cat("'Scale User '", sql.text('n'))},
           'not a hash', ${sql.cat("'user'", sql.text('n'), "'@scale.example'")}, ${dialect === 'pg' ? 'true, true' : '1, 1'},
           'authenticated',
           ${sql.cat(`'{"plan":"p'`, sql.text('(n % 1000)'), `'","ref":'`, sql.text('n'), "'}'")}, ?, ?, 0
         ${sql.series(from, to)}`,
        [created, created],
      ),
    step('users'),
  );
  if (dialect === 'pg') {
    await knex.raw(`SELECT setval(pg_get_serial_sequence('users', 'user_id'), (SELECT max(user_id) FROM users))`);
  }
  await chunked(
    2 * users,
    (from, to) =>
      knex.raw(
        `INSERT INTO sessions (token_hash, user_id, ip_address, user_agent, created, expires, extra_info_json)
         SELECT ${sql.hash('s', 'n')}, ${userOf('n')}, '192.0.2.9', 'scale', ?, ${expiry('n')}, '{}'
         ${sql.series(from, to)}`,
        [created, past, future],
      ),
    step('sessions'),
  );
  // Session keys on live sessions (odd n); no-session keys and their refresh tokens half expired.
  await chunked(
    keys,
    (from, to) =>
      knex.raw(
        `INSERT INTO apikeys (tkn_hash, user_id, user_role, session_hash, issuer, audience, subject, apiversion,
           ip_address, user_agent, issued, not_valid_before, expires)
         SELECT ${sql.hash('k', 'n')}, ${userOf('2 * n - 1')}, 'authenticated', ${sql.hash('s', '2 * n - 1')}, 'scale',
           'api', '["/api/a"]', 1, '192.0.2.9', 'scale', ?, ?, ?
         ${sql.series(from, to)}`,
        [created, created, future],
      ),
    step('apikeys'),
  );
  await chunked(
    keys,
    (from, to) =>
      knex.raw(
        `INSERT INTO apikeys_nosession (tkn_hash, family_id, user_id, user_role, issuer, audience, subject, apiversion,
           ip_address, issued, not_valid_before, expires)
         SELECT ${sql.hash('a', 'n')}, ${sql.hash('f', 'n')}, ${userOf('n')}, 'authenticated', 'scale', 'api',
           '["/api/a"]', 1, '192.0.2.9', ?, ?, ${expiry('n')}
         ${sql.series(from, to)}`,
        [created, created, past, future],
      ),
    step('apikeys_nosession'),
  );
  await chunked(
    keys,
    (from, to) =>
      knex.raw(
        `INSERT INTO refresh_tokens (token_hash, family_id, apikey_hash, user_id, issued, not_valid_before, expires)
         SELECT ${sql.hash('r', 'n')}, ${sql.hash('f', 'n')}, ${sql.hash('a', 'n')}, ${userOf('n')}, ?, ?, ${expiry('n')}
         ${sql.series(from, to)}`,
        [created, created, past, future],
      ),
    step('refresh_tokens'),
  );
  if (dialect === 'pg') await knex.raw('ANALYZE');
  if (dialect === 'mysql') await knex.raw('ANALYZE TABLE users, sessions, apikeys, apikeys_nosession, refresh_tokens');
  if (dialect === 'sqlite') await knex.raw('PRAGMA wal_checkpoint(TRUNCATE)');
}

/** What docs/operations/databases.md#searching-users-by-extra_info tells an operator to run (nothing on MariaDB). */
export function extraInfoIndex(dialect: Dialect): readonly string[] {
  if (dialect === 'sqlite') return ["CREATE INDEX users_extra_info_ref ON users (json_extract(extra_info, '$.ref'))"];
  if (dialect === 'pg')
    return [
      'CREATE INDEX users_extra_info_gin ON users USING gin ((extra_info::jsonb) jsonb_path_ops)',
      'ANALYZE users',
    ];
  return [];
}
