/**
 * The users repo: everything the service asks of the user aggregate, over the users table. One repo for
 * the table, whoever calls it (sign-up, login and password changes, administration, access checks);
 * its statements are written in three files by what they do: reads (users-read.ts), sign-in counters
 * and credentials (users-sign-in.ts), administration (users-admin.ts), the email actions' sent marks
 * (email-marks.ts).
 *
 * Every write binds its times from the caller's clock. A statement that changes a row on a condition of
 * its own old values is ONE statement (a counter, a compare-and-swap), so concurrent requests, in one
 * process or several, never interleave a read and a write (docs/design.md#counters-that-say-what-they-wrote); on
 * MariaDB/MySQL, which has no UPDATE … RETURNING, a counter that must say what it wrote reads and writes under the
 * row's lock.
 */
import type { Db } from './db.js';
import { emailMarksRepo } from './email-marks.js';
import type { UserRepo } from './user-repo.js';
import { userAdmin } from './users-admin.js';
import { userReads } from './users-read.js';
import { userSignIn } from './users-sign-in.js';

export type * from './user-repo.js';

export function userRepo(db: Db): UserRepo {
  return { ...userReads(db), ...userSignIn(db), ...userAdmin(db), ...emailMarksRepo(db) };
}
