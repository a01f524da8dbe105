/**
 * In-code migrations with extension-less names, so running from src (tsx) and from dist records the
 * same names (docs/design.md#migrations-named-without-extensions). Every table is created only when it is missing
 * (spec: "at every start the service creates its database tables only if they do not already exist").
 *
 * MariaDB/MySQL: every table is utf8mb4 with a binary, no-pad collation, so that emails, system ids,
 * token hashes, roles, names and the JSON text of compare-and-swap updates compare byte for byte as on
 * PostgreSQL and SQLite (docs/design.md#mariadb-binary-collation: the server default is case-, accent- and
 * trailing-space-insensitive). User ids are `int unsigned` there, and so is every column referencing them (a foreign
 * key needs the same type); indexed strings stay under InnoDB's 3072-byte key limit (280 characters × 4 bytes).
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import { LIMITS } from '../../protocol/index.js';
import type { Dialect } from './dialect.js';

const HASH = 64; // SHA-256 hex
/** A factor's and a session's public id: 16 random bytes, base64url. */
const FACTOR_ID = 22;
const SESSION_ID = 22;

interface Columns {
  time(t: Knex.CreateTableBuilder, name: string): Knex.ColumnBuilder;
  /** A string compared byte for byte (MariaDB's default collation is case- and accent-insensitive). */
  exact(t: Knex.CreateTableBuilder, name: string, length: number): Knex.ColumnBuilder;
  json(t: Knex.CreateTableBuilder, name: string): Knex.ColumnBuilder;
  userRef(t: Knex.CreateTableBuilder, name: string): Knex.ColumnBuilder;
}

function columns(dialect: Dialect, binary: string): Columns {
  return {
    time: (t, name) =>
      dialect === 'sqlite'
        ? t.bigInteger(name)
        : dialect === 'pg'
          ? t.timestamp(name, { useTz: true, precision: 3 })
          : t.datetime(name, { precision: 3 }),
    exact: (t, name, length) => {
      const column = t.string(name, length);
      return dialect === 'mysql' ? column.collate(binary) : column;
    },
    json: (t, name) => (dialect === 'mysql' ? t.text(name, 'mediumtext').collate(binary) : t.text(name)),
    userRef: (t, name) => {
      const column = t.integer(name).unsigned().notNullable();
      column.references('user_id').inTable('users').onDelete('CASCADE');
      return column;
    },
  };
}

/**
 * The binary collation of MariaDB/MySQL without PAD SPACE where the server has one ('a ' ≠ 'a', as on
 * PostgreSQL and SQLite): MariaDB's utf8mb4_nopad_bin, MySQL 8's utf8mb4_0900_bin, else utf8mb4_bin.
 */
export async function binaryCollation(knex: Knex): Promise<string> {
  const [rows] = (await knex.raw("SHOW COLLATION WHERE Collation IN ('utf8mb4_nopad_bin', 'utf8mb4_0900_bin')")) as [
    Array<{ Collation: string }>,
  ];
  const names = rows.map((r) => r.Collation);
  return names.includes('utf8mb4_nopad_bin')
    ? 'utf8mb4_nopad_bin'
    : names.includes('utf8mb4_0900_bin')
      ? 'utf8mb4_0900_bin'
      : 'utf8mb4_bin';
}

async function createTableIfMissing(
  knex: Knex,
  dialect: Dialect,
  binary: string,
  table: string,
  build: (t: Knex.CreateTableBuilder) => void,
): Promise<void> {
  if (await knex.schema.hasTable(table)) return;
  await knex.schema.createTable(table, (t) => {
    if (dialect === 'mysql') {
      t.engine('InnoDB');
      t.charset('utf8mb4');
      t.collate(binary);
    }
    build(t);
  });
}

/** The column helpers and the create-if-missing of one migration, with the collation MariaDB/MySQL needs. */
async function tableMaker(knex: Knex, dialect: Dialect) {
  const binary = dialect === 'mysql' ? await binaryCollation(knex) : '';
  return {
    c: columns(dialect, binary),
    createIfMissing: (table: string, build: (t: Knex.CreateTableBuilder) => void): Promise<void> =>
      createTableIfMissing(knex, dialect, binary, table, build),
  };
}

function initial(dialect: Dialect): Knex.Migration {
  return {
    async up(knex) {
      const { c, createIfMissing } = await tableMaker(knex, dialect);
      await createIfMissing('users', (t) => {
        t.increments('user_id').primary();
        c.exact(t, 'system_id', LIMITS.systemId).notNullable().unique();
        t.string('full_name', LIMITS.fullName).nullable().index();
        t.text('password').notNullable();
        c.exact(t, 'email', LIMITS.email).notNullable().unique();
        t.boolean('email_verified').notNullable().defaultTo(false);
        t.boolean('is_active').notNullable().defaultTo(false).index();
        t.string('user_role', LIMITS.role).notNullable().index();
        // The role to restore on user-lock `unlock` (docs/design.md#superuser-lock-and-what-ends-with-it).
        t.string('previous_role', LIMITS.role).nullable();
        c.json(t, 'extra_info').nullable();
        c.time(t, 'created_on').notNullable();
        c.time(t, 'last_updated').notNullable();
        c.time(t, 'last_login_try').nullable();
        c.time(t, 'last_login_success').nullable();
        t.integer('failed_login_tries').notNullable().defaultTo(0);
        // End of a temporary lock after too many failed logins (docs/design.md#lock-out-and-login-back-off).
        c.time(t, 'locked_until').nullable();
        c.time(t, 'emailverify_sent_datetime').nullable();
        c.time(t, 'emailforgotpass_sent_datetime').nullable();
        c.time(t, 'emailchangepass_sent_datetime').nullable();
      });
      await createIfMissing('sessions', (t) => {
        c.exact(t, 'token_hash', HASH).primary();
        c.userRef(t, 'user_id').index();
        t.string('ip_address', LIMITS.ipAddress).notNullable();
        t.string('user_agent', LIMITS.userAgent).notNullable();
        c.time(t, 'created').notNullable();
        c.time(t, 'expires').notNullable().index();
        c.json(t, 'extra_info_json').notNullable();
      });
      await createIfMissing('apikeys', (t) => {
        c.exact(t, 'tkn_hash', HASH).primary();
        c.userRef(t, 'user_id').index();
        t.string('user_role', LIMITS.role).notNullable();
        c.exact(t, 'session_hash', HASH)
          .notNullable()
          .index()
          .references('token_hash')
          .inTable('sessions')
          .onDelete('CASCADE');
        t.string('issuer', 280).notNullable();
        t.string('audience', 280).notNullable();
        c.json(t, 'subject').notNullable();
        t.integer('apiversion').notNullable();
        t.string('ip_address', LIMITS.ipAddress).notNullable();
        t.string('user_agent', LIMITS.userAgent).notNullable();
        c.time(t, 'issued').notNullable();
        c.time(t, 'not_valid_before').notNullable();
        c.time(t, 'expires').notNullable().index();
      });
      await createIfMissing('apikeys_nosession', (t) => {
        c.exact(t, 'tkn_hash', HASH).primary();
        // Every key descending from one apikey-new-nosession shares a family (refresh reuse revokes it).
        c.exact(t, 'family_id', HASH).notNullable().index();
        c.userRef(t, 'user_id').index();
        t.string('user_role', LIMITS.role).notNullable();
        t.string('issuer', 280).notNullable();
        t.string('audience', 280).notNullable();
        c.json(t, 'subject').notNullable();
        t.integer('apiversion').notNullable();
        t.string('ip_address', LIMITS.ipAddress).notNullable();
        c.time(t, 'issued').notNullable();
        c.time(t, 'not_valid_before').notNullable();
        c.time(t, 'expires').notNullable().index();
      });
      await createIfMissing('refresh_tokens', (t) => {
        c.exact(t, 'token_hash', HASH).primary();
        c.exact(t, 'family_id', HASH).notNullable().index();
        c.exact(t, 'apikey_hash', HASH).notNullable();
        c.userRef(t, 'user_id').index();
        c.time(t, 'issued').notNullable();
        c.time(t, 'not_valid_before').notNullable();
        c.time(t, 'expires').notNullable().index();
        // Set when the token has been exchanged; presenting it again is reuse
        // (docs/design.md#api-keys-and-refresh-tokens).
        c.time(t, 'rotated_at').nullable();
      });
    },
    async down(knex) {
      for (const table of ['refresh_tokens', 'apikeys_nosession', 'apikeys', 'sessions', 'users']) {
        await knex.schema.dropTableIfExists(table);
      }
    },
  };
}

/** The tables whose rows are credentials issued to a user: each records the user's generation then. */
export const FENCED_TABLES = ['apikeys', 'apikeys_nosession', 'refresh_tokens'] as const;

/**
 * The revocation fence (docs/design.md#revocation-fence): `users.credential_generation` is bumped by
 * every revocation, and every key and refresh token records the generation its user had when it was
 * issued; one whose generation is not its user's any more does not verify. Existing rows start at 0,
 * matching their users' 0, so what was valid before the upgrade stays valid.
 */
const credentialGeneration: Knex.Migration = {
  async up(knex) {
    for (const table of ['users', ...FENCED_TABLES]) {
      if (await knex.schema.hasColumn(table, 'credential_generation')) continue;
      await knex.schema.alterTable(table, (t) => {
        t.integer('credential_generation').notNullable().defaultTo(0);
      });
    }
  },
  async down(knex) {
    for (const table of ['users', ...FENCED_TABLES]) {
      await knex.schema.alterTable(table, (t) => {
        t.dropColumn('credential_generation');
      });
    }
  },
};

/**
 * Second factors (docs/design.md#second-factors): a user's factors (TOTP, passkeys), their recovery codes (hashes
 * only), the login tickets between a login's two steps (hashes only), and when a session last proved a factor. A
 * user without factors has no rows here, and nothing of the existing tables' rows changes.
 */
function secondFactors(dialect: Dialect): Knex.Migration {
  return {
    async up(knex) {
      const { c, createIfMissing } = await tableMaker(knex, dialect);
      await createIfMissing('user_factors', (t) => {
        c.exact(t, 'factor_id', FACTOR_ID).primary();
        c.userRef(t, 'user_id').index();
        t.string('kind', 16).notNullable();
        t.string('name', LIMITS.fullName).notNullable();
        // A TOTP factor is pending until its first code confirms it; a passkey is active once verified.
        t.boolean('active').notNullable().defaultTo(false);
        c.time(t, 'created').notNullable();
        c.time(t, 'last_used').nullable();
        // TOTP: the secret sealed with the server's secret, and the last time step accepted (each step once).
        t.text('secret').nullable();
        t.bigInteger('last_step').nullable();
        // Passkeys: the credential id's SHA-256 (unique; the id itself can be 1,023 bytes), the id, the
        // COSE public key (base64url), the signature counter and the transports the browser reported.
        c.exact(t, 'credential_hash', HASH).nullable().unique();
        t.text('credential_id').nullable();
        t.text('public_key').nullable();
        t.bigInteger('sign_count').nullable();
        c.json(t, 'transports').nullable();
      });
      await createIfMissing('recovery_codes', (t) => {
        c.exact(t, 'code_hash', HASH).primary();
        c.userRef(t, 'user_id').index();
        c.time(t, 'created').notNullable();
      });
      await createIfMissing('login_tickets', (t) => {
        c.exact(t, 'ticket_hash', HASH).primary();
        c.userRef(t, 'user_id').index();
        // The session the first step was given (null for user-passcheck-nosession); not a foreign key:
        // the ticket is refused, not deleted, when its session has gone.
        c.exact(t, 'session_hash', HASH).nullable();
        // The action that issued it: its second step answers as that action would have.
        t.string('origin', 40).notNullable();
        t.integer('credential_generation').notNullable();
        t.integer('wrong_tries').notNullable().defaultTo(0);
        c.time(t, 'created').notNullable();
        c.time(t, 'expires').notNullable().index();
      });
      if (!(await knex.schema.hasColumn('sessions', 'stepup_at'))) {
        await knex.schema.alterTable('sessions', (t) => {
          c.time(t, 'stepup_at').nullable();
        });
      }
    },
    async down(knex) {
      for (const table of ['login_tickets', 'recovery_codes', 'user_factors']) {
        await knex.schema.dropTableIfExists(table);
      }
      await knex.schema.alterTable('sessions', (t) => {
        t.dropColumn('stepup_at');
      });
    },
  };
}

/** The challenges of passkey ceremonies (docs/design.md#passkeys): single use, shared by every process. */
function passkeyChallenges(dialect: Dialect): Knex.Migration {
  return {
    async up(knex) {
      const { c, createIfMissing } = await tableMaker(knex, dialect);
      await createIfMissing('passkey_challenges', (t) => {
        c.exact(t, 'challenge_hash', HASH).primary();
        // register, login, secondfactor or stepup: a challenge answers only the ceremony it was made for.
        t.string('purpose', 16).notNullable();
        // Null for a passwordless login, which learns the user from the passkey; a deleted user's row just expires.
        t.integer('user_id').unsigned().nullable();
        c.exact(t, 'session_hash', HASH).notNullable();
        c.time(t, 'expires').notNullable().index();
      });
    },
    async down(knex) {
      await knex.schema.dropTableIfExists('passkey_challenges');
    },
  };
}

/**
 * A session's public id and when it was last seen (docs/design.md#devices): the id names a session to its user
 * (session-list, session-revoke) without its token. The sessions open before this migration get random ids here,
 * in batches, and were last seen when created.
 */
function sessionDevices(dialect: Dialect): Knex.Migration {
  return {
    async up(knex) {
      const { c } = await tableMaker(knex, dialect);
      if (!(await knex.schema.hasColumn('sessions', 'session_id'))) {
        await knex.schema.alterTable('sessions', (t) => {
          // Nullable in the schema (a NOT NULL column added to a table with rows needs a default), never null in a row.
          c.exact(t, 'session_id', SESSION_ID).nullable().unique();
          c.time(t, 'last_seen').nullable();
        });
      }
      await knex('sessions')
        .whereNull('last_seen')
        .update({ last_seen: knex.ref('created') });
      for (;;) {
        const rows = (await knex('sessions').select('token_hash').whereNull('session_id').limit(500)) as Array<{
          token_hash: string;
        }>;
        if (rows.length === 0) break;
        for (const { token_hash } of rows) {
          await knex('sessions')
            .update({ session_id: randomBytes(16).toString('base64url') })
            .where({ token_hash });
        }
      }
    },
    async down(knex) {
      await knex.schema.alterTable('sessions', (t) => {
        t.dropUnique(['session_id']);
        t.dropColumn('session_id');
        t.dropColumn('last_seen');
      });
    },
  };
}

/**
 * The users' own security history (docs/design.md#security-history): one row per event, newest read first by
 * (user_id, event_id); `expires` is the event's time plus `eventretention` days, so the purge removes it like
 * every other expired row. A deleted user's history goes with them.
 */
function userEvents(dialect: Dialect): Knex.Migration {
  return {
    async up(knex) {
      const { c, createIfMissing } = await tableMaker(knex, dialect);
      await createIfMissing('user_events', (t) => {
        t.increments('event_id').primary();
        c.userRef(t, 'user_id');
        t.string('event', 48).notNullable();
        c.time(t, 'time').notNullable();
        t.string('ip_address', LIMITS.ipAddress).nullable();
        t.string('user_agent', LIMITS.userAgent).nullable();
        c.json(t, 'detail').notNullable();
        c.time(t, 'expires').notNullable().index();
        t.index(['user_id', 'event_id']);
      });
    },
    async down(knex) {
      await knex.schema.dropTableIfExists('user_events');
    },
  };
}

/**
 * Indexes for a large database (docs/design.md#a-million-users): the purge keeps a no-session key while a refresh
 * token names it (`refresh_tokens.apikey_hash`), and user-lookup-match pages through the users of one value of a
 * column in user_id order, which an index on (column, user_id) answers as one bounded range. SQLite and InnoDB end
 * every index with the primary key already, so only PostgreSQL needs the pair for the columns indexed since 0001.
 */
const TIME_MATCHES = ['created_on', 'last_login_try', 'last_login_success'];
const INDEXED_MATCHES = ['full_name', 'user_role', 'is_active'];

function scaleIndexes(dialect: Dialect): Knex.Migration {
  const paired = [...TIME_MATCHES, ...(dialect === 'pg' ? INDEXED_MATCHES : [])].map((column) => [column, 'user_id']);
  return {
    async up(knex) {
      await knex.schema.alterTable('refresh_tokens', (t) => {
        t.index(['apikey_hash']);
      });
      await knex.schema.alterTable('users', (t) => {
        for (const columns of paired) t.index(columns);
      });
    },
    async down(knex) {
      await knex.schema.alterTable('users', (t) => {
        for (const columns of paired) t.dropIndex(columns);
      });
      await knex.schema.alterTable('refresh_tokens', (t) => {
        t.dropIndex(['apikey_hash']);
      });
    },
  };
}

export function migrationSource(dialect: Dialect): Knex.MigrationSource<string> {
  const migrations: Record<string, Knex.Migration> = {
    '0001_initial': initial(dialect),
    '0002_credential_generation': credentialGeneration,
    '0003_second_factors': secondFactors(dialect),
    '0004_passkey_challenges': passkeyChallenges(dialect),
    '0005_session_devices': sessionDevices(dialect),
    '0006_user_events': userEvents(dialect),
    '0007_scale_indexes': scaleIndexes(dialect),
  };
  return {
    getMigrations: () => Promise.resolve(Object.keys(migrations)),
    getMigrationName: (name) => name,
    getMigration: (name) => {
      const migration = migrations[name];
      return migration === undefined
        ? Promise.reject(new Error(`unknown migration ${name}`))
        : Promise.resolve(migration);
    },
  };
}

export const MIGRATIONS_TABLE = 'authsvc_migrations';

/** Errors of two instances migrating at once: the loser waits and tries again. */
function isMigrationRace(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'MigrationLocked') return true; // knex's lock row is held by the other instance
  const { code, errno } = error as Error & { code?: unknown; errno?: unknown };
  // Both created knex's own tables at once: PostgreSQL duplicate table / unique violation (pg_type),
  // MariaDB/MySQL table exists / duplicate entry, SQLite "table … already exists". On SQLite, knex's
  // migrator begins its transactions deferred (the store's own begin IMMEDIATE, db.ts), so the loser may
  // also find the database busy at its first write.
  return (
    code === '42P07' ||
    code === '23505' ||
    errno === 1050 ||
    errno === 1062 ||
    /already exists/i.test(error.message) ||
    (typeof code === 'string' && code.startsWith('SQLITE_BUSY'))
  );
}

/**
 * Two first starts can both find knex's lock table empty and both insert its row. knex takes the lock
 * by updating the unlocked rows and insists on exactly one, so with two unlocked rows nobody could
 * ever migrate again: keep the lowest row (docs/design.md#migrations-named-without-extensions).
 */
async function dropDuplicateLockRows(knex: Knex): Promise<void> {
  const table = `${MIGRATIONS_TABLE}_lock`;
  const rows = (await knex(table).select('index').orderBy('index')) as Array<{ index: number }>;
  const [keep, ...extra] = rows;
  if (keep !== undefined && extra.length > 0) await knex(table).whereNot('index', keep.index).del();
}

export interface MigrateOptions {
  /** How long to keep retrying while another instance holds the migration lock. */
  readonly retryForMs?: number;
  readonly onRetry?: (error: Error, attempt: number) => void;
}

export async function migrate(knex: Knex, dialect: Dialect, options: MigrateOptions = {}): Promise<void> {
  const started = performance.now();
  const retryForMs = options.retryForMs ?? 60_000;
  for (let attempt = 1; ; attempt++) {
    try {
      await knex.migrate.latest({ migrationSource: migrationSource(dialect), tableName: MIGRATIONS_TABLE });
      return;
    } catch (error) {
      if (!isMigrationRace(error) || performance.now() - started > retryForMs) throw error;
      if ((error as Error).name === 'MigrationLocked') await dropDuplicateLockRows(knex);
      options.onRetry?.(error as Error, attempt);
      await sleep(100 + Math.floor(Math.random() * 400));
    }
  }
}
