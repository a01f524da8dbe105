/**
 * The second-factor repo (docs/design.md#second-factors): a user's factors, recovery codes and login tickets, and
 * when a session last proved a factor. Every single-use thing is spent by one conditional statement whose count of
 * changed rows says who won, so two requests racing on one code, step or ticket never both succeed.
 */
import { hashToken } from '../../domain/tokens.js';
import type { Db } from './db.js';
import { isForeignKeyViolation, isUniqueViolation, optionalTimeFromDb, timeToDb } from './dialect.js';
import type { Row } from './records.js';
import {
  LOGIN_TICKETS,
  PASSKEY_CHALLENGES,
  RECOVERY_CODES,
  SESSIONS,
  USER_FACTORS,
  columnsToRow,
  rowToColumns,
} from './tables.js';

export type FactorKind = 'totp' | 'passkey';

export interface FactorRecord {
  readonly factorId: string;
  readonly userId: number;
  readonly kind: FactorKind;
  readonly name: string;
  /** A TOTP factor is pending until its first code confirms it. */
  readonly active: boolean;
  readonly created: number;
  readonly lastUsed: number | null;
  /** TOTP: the secret, sealed (accounts/secret-box.ts). */
  readonly secret: string | null;
  /** TOTP: the last time step accepted; a code of that step or an earlier one is refused. */
  readonly lastStep: number | null;
  /** Passkeys: the credential id (base64url), its COSE public key (base64url), counter and transports. */
  readonly credentialId: string | null;
  readonly publicKey: string | null;
  readonly signCount: number | null;
  readonly transports: readonly string[] | null;
}

/** How a user can prove a second factor; none of them: the user has no second factor. */
export interface FactorMethods {
  readonly totp: boolean;
  readonly passkey: boolean;
  readonly recoveryCodes: number;
}

export interface TicketRecord {
  readonly ticketHash: string;
  readonly userId: number;
  /** The session the first step was given; null for user-passcheck-nosession. */
  readonly sessionHash: string | null;
  /** The action that issued it (its second step answers as that action would). */
  readonly origin: string;
  /** The user's credential generation when it was issued: a revocation since kills it (revocation fence). */
  readonly generation: number;
  readonly wrongTries: number;
  readonly created: number;
  readonly expires: number;
}

export type ChallengePurpose = 'register' | 'login' | 'secondfactor' | 'stepup';

/** A passkey ceremony's challenge, stored as its hash, bound to the session that asked and (but for login) the user. */
export interface ChallengeRecord {
  readonly challengeHash: string;
  readonly purpose: ChallengePurpose;
  readonly userId: number | null;
  readonly sessionHash: string;
  readonly expires: number;
}

/** What add() answers: stored, or why not (the user has gone; the passkey is already registered). */
export type Added = 'added' | 'no_user' | 'duplicate';

export interface FactorRepo {
  /** All of the user's factors, pending ones included, oldest first. */
  list(userId: number): Promise<FactorRecord[]>;
  find(userId: number, factorId: string): Promise<FactorRecord | null>;
  /** The active factors' kinds and the recovery codes left (one query when the user has no factor). */
  methods(userId: number): Promise<FactorMethods>;
  /**
   * Stores a factor, replacing the user's other pending TOTP factors; `recoveryHashes`, when given, become the user's
   * recovery codes in the same transaction (an active first factor). A passkey's credential id is unique.
   */
  add(factor: FactorRecord, recoveryHashes?: readonly string[]): Promise<Added>;
  /** The active passkey with this credential id, whoever's it is. */
  findPasskey(credentialId: string): Promise<FactorRecord | null>;
  /**
   * Records a passkey's use with its new signature counter: only if the stored counter is still `previous`
   * (compare-and-swap), so of two assertions verified at once, one wins.
   */
  acceptCounter(factorId: string, previous: number, next: number, now: number): Promise<boolean>;
  /**
   * Activates a pending TOTP factor with the step its first code used; when it is the user's first active factor,
   * `recoveryHashes` become the user's recovery codes (in the same transaction). False when it was not pending.
   */
  activate(
    userId: number,
    factorId: string,
    step: number,
    now: number,
    recoveryHashes: readonly string[],
  ): Promise<boolean>;
  /** Accepts a TOTP step once: only if it is later than the last one accepted (compare-and-swap). */
  acceptStep(factorId: string, step: number, now: number): Promise<boolean>;
  /** Deletes one factor; deleting the last active one also deletes the recovery codes. */
  remove(userId: number, factorId: string): Promise<boolean>;
  /** Deletes every factor and recovery code of the user; returns how many factors. */
  removeAll(userId: number): Promise<number>;
  /** Replaces the user's recovery codes. */
  replaceRecoveryCodes(userId: number, hashes: readonly string[], now: number): Promise<void>;
  /** Spends one recovery code; false when it is not (or no longer) the user's. */
  useRecoveryCode(userId: number, codeHash: string): Promise<boolean>;

  createTicket(ticket: TicketRecord): Promise<void>;
  /** An unexpired ticket. */
  findTicket(ticketHash: string, now: number): Promise<TicketRecord | null>;
  /** Counts a wrong try; the ticket is deleted at its `maxTries`-th. */
  countWrongTry(ticketHash: string, maxTries: number): Promise<void>;
  /** Spends the ticket: true for exactly one caller. */
  spendTicket(ticketHash: string): Promise<boolean>;

  createChallenge(challenge: ChallengeRecord): Promise<void>;
  /** Takes an unexpired challenge: it is deleted, and only one caller gets it. */
  takeChallenge(challengeHash: string, now: number): Promise<ChallengeRecord | null>;

  /** When the session, a live one of `userId`, last proved a second factor (null: never, or no such session). */
  stepUpAt(sessionHash: string, userId: number, now: number): Promise<number | null>;
  /** Records that the session's user proved a second factor now; false when the session has gone. */
  markStepUp(sessionHash: string, now: number): Promise<boolean>;
}

const PURPOSES: readonly ChallengePurpose[] = ['register', 'login', 'secondfactor', 'stepup'];

const FACTOR_COLUMNS = [
  'factor_id',
  'user_id',
  'kind',
  'name',
  'active',
  'created',
  'last_used',
  'secret',
  'last_step',
  'credential_id',
  'public_key',
  'sign_count',
  'transports',
] as const;

function factorRecord(row: Row): FactorRecord {
  const c = rowToColumns(USER_FACTORS, row);
  return {
    factorId: String(c['factor_id']),
    userId: Number(c['user_id']),
    kind: c['kind'] === 'passkey' ? 'passkey' : 'totp',
    name: String(c['name']),
    active: c['active'] === true,
    created: Number(c['created']),
    lastUsed: (c['last_used'] as number | null | undefined) ?? null,
    secret: (c['secret'] as string | null | undefined) ?? null,
    lastStep: (c['last_step'] as number | null | undefined) ?? null,
    credentialId: (c['credential_id'] as string | null | undefined) ?? null,
    publicKey: (c['public_key'] as string | null | undefined) ?? null,
    signCount: (c['sign_count'] as number | null | undefined) ?? null,
    transports: (c['transports'] as string[] | null | undefined) ?? null,
  };
}

function ticketRecord(row: Row): TicketRecord {
  const c = rowToColumns(LOGIN_TICKETS, row);
  return {
    ticketHash: String(c['ticket_hash']),
    userId: Number(c['user_id']),
    sessionHash: (c['session_hash'] as string | null | undefined) ?? null,
    origin: String(c['origin']),
    generation: Number(c['credential_generation']),
    wrongTries: Number(c['wrong_tries']),
    created: Number(c['created']),
    expires: Number(c['expires']),
  };
}

export function factorRepo(db: Db): FactorRepo {
  const { knex, dialect } = db;
  const t = (ms: number): number | Date => timeToDb(dialect, ms);
  const factors = () => knex(USER_FACTORS.name);
  const codes = () => knex(RECOVERY_CODES.name);
  const tickets = () => knex(LOGIN_TICKETS.name);
  const challenges = () => knex(PASSKEY_CHALLENGES.name);

  const codeRows = (userId: number, hashes: readonly string[], now: number) =>
    hashes.map((hash) => columnsToRow(RECOVERY_CODES, dialect, { code_hash: hash, user_id: userId, created: now }));

  return {
    async list(userId) {
      const rows = (await factors()
        .select(FACTOR_COLUMNS)
        .where('user_id', userId)
        .orderBy([{ column: 'created' }, { column: 'factor_id' }])) as Row[];
      return rows.map(factorRecord);
    },

    async find(userId, factorId) {
      const row = (await factors().select(FACTOR_COLUMNS).where({ user_id: userId, factor_id: factorId }).first()) as
        Row | undefined;
      return row === undefined ? null : factorRecord(row);
    },

    async methods(userId) {
      const kinds = (await factors().distinct('kind').where({ user_id: userId, active: true })) as Row[];
      if (kinds.length === 0) return { totp: false, passkey: false, recoveryCodes: 0 };
      const counted = (await codes().count({ n: '*' }).where('user_id', userId).first()) as Row | undefined;
      const names = kinds.map((row) => row['kind']);
      return {
        totp: names.includes('totp'),
        passkey: names.includes('passkey'),
        recoveryCodes: Number(counted?.['n'] ?? 0),
      };
    },

    async add(factor, recoveryHashes = []) {
      try {
        await db.transaction(async (tx) => {
          if (factor.kind === 'totp') {
            await tx.on(factors().delete().where({ user_id: factor.userId, kind: 'totp', active: false }));
          }
          if (recoveryHashes.length > 0) {
            await tx.on(codes().delete().where('user_id', factor.userId));
            await tx.on(codes().insert(codeRows(factor.userId, recoveryHashes, factor.created)));
          }
          await tx.on(
            factors().insert(
              columnsToRow(USER_FACTORS, dialect, {
                factor_id: factor.factorId,
                user_id: factor.userId,
                kind: factor.kind,
                name: factor.name,
                active: factor.active,
                created: factor.created,
                last_used: factor.lastUsed,
                secret: factor.secret,
                last_step: factor.lastStep,
                credential_hash: factor.credentialId === null ? null : hashToken(factor.credentialId),
                credential_id: factor.credentialId,
                public_key: factor.publicKey,
                sign_count: factor.signCount,
                transports: factor.transports === null ? null : [...factor.transports],
              }),
            ),
          );
        });
        return 'added';
      } catch (error) {
        if (isForeignKeyViolation(error)) return 'no_user';
        if (isUniqueViolation(error)) return 'duplicate';
        throw error;
      }
    },

    async findPasskey(credentialId) {
      const row = (await factors()
        .select(FACTOR_COLUMNS)
        .where({ credential_hash: hashToken(credentialId), kind: 'passkey', active: true })
        .first()) as Row | undefined;
      return row === undefined ? null : factorRecord(row);
    },

    async acceptCounter(factorId, previous, next, now) {
      const changed = await factors()
        .update(columnsToRow(USER_FACTORS, dialect, { sign_count: next, last_used: now }))
        .where({ factor_id: factorId, active: true, sign_count: previous });
      return changed > 0;
    },

    activate: (userId, factorId, step, now, recoveryHashes) =>
      db.transaction(async (tx) => {
        const changed = await tx.on(
          factors()
            .update(columnsToRow(USER_FACTORS, dialect, { active: true, last_step: step, last_used: now }))
            .where({ user_id: userId, factor_id: factorId, kind: 'totp', active: false }),
        );
        if (changed === 0) return false;
        if (recoveryHashes.length > 0) {
          await tx.on(codes().delete().where('user_id', userId));
          await tx.on(codes().insert(codeRows(userId, recoveryHashes, now)));
        }
        return true;
      }),

    async acceptStep(factorId, step, now) {
      const changed = await factors()
        .update(columnsToRow(USER_FACTORS, dialect, { last_step: step, last_used: now }))
        .where({ factor_id: factorId, active: true })
        .andWhere((q) => void q.whereNull('last_step').orWhere('last_step', '<', step));
      return changed > 0;
    },

    remove: (userId, factorId) =>
      db.transaction(async (tx) => {
        const deleted = await tx.on(factors().delete().where({ user_id: userId, factor_id: factorId }));
        if (deleted === 0) return false;
        const left = (await tx.on(factors().select('factor_id').where({ user_id: userId, active: true }).first())) as
          Row | undefined;
        if (left === undefined) await tx.on(codes().delete().where('user_id', userId));
        return true;
      }),

    removeAll: (userId) =>
      db.transaction(async (tx) => {
        const deleted = await tx.on(factors().delete().where('user_id', userId));
        await tx.on(codes().delete().where('user_id', userId));
        return deleted;
      }),

    replaceRecoveryCodes: (userId, hashes, now) =>
      db.transaction(async (tx) => {
        await tx.on(codes().delete().where('user_id', userId));
        if (hashes.length > 0) await tx.on(codes().insert(codeRows(userId, hashes, now)));
      }),

    async useRecoveryCode(userId, codeHash) {
      return (await codes().delete().where({ user_id: userId, code_hash: codeHash })) > 0;
    },

    async createTicket(ticket) {
      await tickets().insert(
        columnsToRow(LOGIN_TICKETS, dialect, {
          ticket_hash: ticket.ticketHash,
          user_id: ticket.userId,
          session_hash: ticket.sessionHash,
          origin: ticket.origin,
          credential_generation: ticket.generation,
          wrong_tries: ticket.wrongTries,
          created: ticket.created,
          expires: ticket.expires,
        }),
      );
    },

    async findTicket(ticketHash, now) {
      const row = (await tickets()
        .select('*')
        .where('ticket_hash', ticketHash)
        .andWhere('expires', '>', t(now))
        .first()) as Row | undefined;
      return row === undefined ? null : ticketRecord(row);
    },

    async countWrongTry(ticketHash, maxTries) {
      await tickets()
        .update({ wrong_tries: knex.raw('?? + 1', ['wrong_tries']) })
        .where('ticket_hash', ticketHash);
      await tickets().delete().where('ticket_hash', ticketHash).andWhere('wrong_tries', '>=', maxTries);
    },

    async spendTicket(ticketHash) {
      return (await tickets().delete().where('ticket_hash', ticketHash)) > 0;
    },

    async createChallenge(challenge) {
      await challenges().insert(
        columnsToRow(PASSKEY_CHALLENGES, dialect, {
          challenge_hash: challenge.challengeHash,
          purpose: challenge.purpose,
          user_id: challenge.userId,
          session_hash: challenge.sessionHash,
          expires: challenge.expires,
        }),
      );
    },

    async takeChallenge(challengeHash, now) {
      const row = (await challenges()
        .select('*')
        .where('challenge_hash', challengeHash)
        .andWhere('expires', '>', t(now))
        .first()) as Row | undefined;
      if (row === undefined) return null;
      if ((await challenges().delete().where('challenge_hash', challengeHash)) === 0) return null;
      const c = rowToColumns(PASSKEY_CHALLENGES, row);
      const purpose = PURPOSES.find((p) => p === c['purpose']);
      if (purpose === undefined) return null;
      return {
        challengeHash,
        purpose,
        userId: (c['user_id'] as number | null | undefined) ?? null,
        sessionHash: String(c['session_hash']),
        expires: Number(c['expires']),
      };
    },

    async stepUpAt(sessionHash, userId, now) {
      const row = (await knex(SESSIONS.name)
        .select('stepup_at')
        .where({ token_hash: sessionHash, user_id: userId })
        .andWhere('expires', '>', t(now))
        .first()) as Row | undefined;
      return optionalTimeFromDb(row?.['stepup_at']);
    },

    async markStepUp(sessionHash, now) {
      const changed = await knex(SESSIONS.name)
        .update({ stepup_at: t(now) })
        .where('token_hash', sessionHash)
        .andWhere('expires', '>', t(now));
      return changed > 0;
    },
  };
}
