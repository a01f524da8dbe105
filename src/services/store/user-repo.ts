/** What the users repo offers (users.ts builds it): its methods and the values they take and return. */
import type { EmailMarksRepo } from './email-marks.js';
import type { JsonObject, MatchField } from '../../protocol/index.js';
import type { UserRecord } from './records.js';

/** A user written as a whole: the fixed accounts (seed.ts). */
export interface NewUser {
  readonly userId?: number;
  readonly systemId: string;
  readonly fullName: string;
  readonly email: string;
  readonly passwordHash: string;
  readonly emailVerified: boolean;
  readonly isActive: boolean;
  readonly userRole: string;
  readonly extraInfo: JsonObject;
  readonly now: number;
}

/** What authorization checks need of a user, read fresh on every check (no cache: a lock shows at once). */
export interface UserStanding {
  readonly userRole: string;
  readonly isActive: boolean;
  /**
   * The generation every revocation bumps (docs/design.md#revocation-fence), read in the same
   * statement as the role and activity: what a key issued on this standing records.
   */
  readonly credentialGeneration: number;
}

export interface Credentials {
  readonly user: UserRecord;
  readonly passwordHash: string;
}

export interface FailureCount {
  /** failed_login_tries after this failure. */
  readonly count: number;
  readonly lockedUntil: number | null;
  /** This failure is the one that set the lock (exactly one request per lock does). */
  readonly lockedNow: boolean;
}

export interface NewSignup {
  readonly systemId: string;
  readonly fullName: string;
  readonly email: string;
  readonly passwordHash: string;
  readonly extraInfo: JsonObject;
  readonly now: number;
}

export type SignupOutcome =
  { readonly created: true; readonly userId: number } | { readonly created: false; readonly existing: UserRecord };

/** Columns an edit may write (user-edit, internal-user-edit). `extra_info` goes by compare-and-swap. */
export interface UserChanges {
  readonly fullName?: string;
  readonly email?: string;
  readonly emailVerified?: boolean;
  readonly isActive?: boolean;
  readonly userRole?: string;
}

export type EditOutcome = 'ok' | 'not_found' | 'email_taken' | 'conflict';

/** A user-lookup-match value for a column: times are epoch ms, null matches a column never set. */
export type ColumnMatch = string | number | boolean | null;

export interface LockOutcome {
  /** The row after the statement. */
  readonly user: UserRecord;
  /** False when the row was already in the requested state. */
  readonly changed: boolean;
  /** Sessions ended by a lock (their session-tied keys went with them). */
  readonly endedSessions: number;
}

export interface EditableUser {
  readonly user: UserRecord;
  /** extra_info exactly as stored: the compare-and-swap compares with this text. */
  readonly extraInfoText: string | null;
}

export interface UserRepo extends EmailMarksRepo {
  // Reads (users-read.ts). The lookups by id and by email are prepared statements.
  byId(userId: number): Promise<UserRecord | null>;
  byEmail(email: string): Promise<UserRecord | null>;
  /** The user with the password hash (for verification only); with `email`, only if it matches too. */
  credentialsById(userId: number, email?: string): Promise<Credentials | null>;
  credentialsByEmail(email: string): Promise<Credentials | null>;
  /** The user with extra_info exactly as stored, for a compare-and-swap edit. */
  forEdit(userId: number): Promise<EditableUser | null>;
  /** The role and activity of each of these users that exists, in one query. */
  standings(userIds: readonly number[]): Promise<ReadonlyMap<number, UserStanding>>;
  /** Users with user_id > afterUserId, ordered by user_id, at most `limit`. */
  page(afterUserId: number, limit: number): Promise<UserRecord[]>;
  matchColumn(
    field: Exclude<MatchField, 'extra_info'>,
    value: ColumnMatch,
    afterUserId: number,
    limit: number,
  ): Promise<UserRecord[]>;
  /**
   * Users after `afterUserId` (ordered, in batches of at most `batch`) whose extra_info may hold every item of
   * `wanted`: a superset the caller narrows with holdsItems (extra-info-match.ts). A batch may be empty (SQLite reads
   * a window of ids at a time); the caller stops when it has enough.
   */
  extraInfoCandidates(wanted: JsonObject, afterUserId: number, batch: number): AsyncIterable<UserRecord[]>;
  systemIdTaken(systemId: string): Promise<boolean>;

  // Creation, credentials and the lock-out counter (users-sign-in.ts).
  /** Inserts a user unless one with the same id or email exists; true when this call inserted it. */
  insertIfAbsent(user: NewUser): Promise<boolean>;
  /** Inserts a new, unverified account unless the email is taken (then the existing account). */
  createSignup(signup: NewSignup): Promise<SignupOutcome>;
  /**
   * A repeated sign-up of an unverified address, once `notSentSince` has passed since the last
   * verification email: the row takes the new name, password and extra info. False when the row is
   * verified, or the wait has not passed (checked in the same statement, so two sign-ups race safely).
   */
  refreshUnverified(
    userId: number,
    signup: Omit<NewSignup, 'systemId' | 'email'>,
    notSentSince: number,
  ): Promise<boolean>;
  /**
   * Counts a failed password check: failed_login_tries + 1 (back to 1 once an earlier lock has
   * expired), last_login_try = now; when the count first exceeds `tries`, locked_until = now + lockMs.
   */
  recordFailure(userId: number, now: number, tries: number, lockMs: number): Promise<FailureCount | null>;
  /** A successful check: the counter and any lock cleared, last_login_success and last_login_try = now. */
  recordSuccess(userId: number, now: number): Promise<void>;
  /** Replaces the password hash (a rehash, a change or a reset). */
  setPasswordHash(userId: number, passwordHash: string, now: number): Promise<void>;
  /**
   * Makes the database's own id counter hand out ids above `lastFixedId` (rows inserted with explicit
   * ids do not advance PostgreSQL's sequence, docs/design.md#postgresql-fixed-ids-and-the-sequence). Never moves a
   * counter back, so an instance starting beside a running one cannot make it hand out an id twice.
   */
  reserveFixedIds(lastFixedId: number): Promise<void>;

  // Administration (users-admin.ts).
  /**
   * Writes `changes`, and `extraInfo.next` only if extra_info is still `extraInfo.previousText`
   * (compare-and-swap: concurrent merges never lose one another's items).
   */
  edit(
    userId: number,
    changes: UserChanges,
    now: number,
    extraInfo?: { readonly previousText: string | null; readonly next: JsonObject },
  ): Promise<EditOutcome>;
  /** Superuser lock (docs/design.md#superuser-lock-and-what-ends-with-it); null when the user does not exist. */
  lock(userId: number, now: number): Promise<LockOutcome | null>;
  unlock(userId: number, now: number): Promise<LockOutcome | null>;
  /** Deletes the user (never a superuser); sessions and keys go by cascade. False when nothing matched. */
  remove(userId: number, email: string): Promise<boolean>;
  /**
   * Marks an unverified, not superuser-locked user verified and active (docs/design.md#fixed-accounts-and-new-users);
   * true when it did.
   */
  markVerified(email: string, now: number): Promise<boolean>;
  markEmailSent(email: string, kind: 'signup' | 'forgotpass', now: number): Promise<boolean>;
}
