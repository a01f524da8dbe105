/**
 * Races through worker processes sharing one database, where a mutex inside one process cannot hide a
 * lost update (docs/design.md#tests-use-real-components): simultaneous wrong logins of one account, and simultaneous
 * refreshes of one API key. The per-finding regression tests (`npm test`) and the reliability suite run the same
 * races at their own sizes and assert on what the race returns.
 */
import assert from 'node:assert/strict';
import type { Store } from '../../src/services/store/index.js';
import { openSessionOn, postOnce } from './process.js';
import type { AuthsvcProcess } from './process.js';
import { KEY_ISSUE, sessionNewBody } from './requests.js';
import { sqlOf } from './sql.js';
import { insertUsers } from './users.js';

export type Reply = Record<string, unknown>;
export type Call = (action: string, body: Record<string, unknown>) => Promise<Reply>;

/**
 * Calls `server`, each request on a connection of its own (so the workers share them). Anything but
 * HTTP 200 fails, saying what the reply and the server's last warnings said.
 */
export function callerOf(server: AuthsvcProcess): Call {
  return async (action, body) => {
    const result = await postOnce(server.url, server.seal(action, body));
    if (result.status !== 200) {
      const warnings = server.logs.filter((l) => l['level'] === 'warn' || l['level'] === 'error');
      assert.fail(
        `HTTP ${result.status} to ${action}: ${JSON.stringify(server.open(result.text))}; logged: ${JSON.stringify(warnings.slice(-5))}`,
      );
    }
    return server.open(result.text);
  };
}

const PASSWORD = 'plinth-orchard-vapour-42';
export const STORM_EMAIL = 'storm@example.org';

export interface LoginStorm {
  /** Every wrong login's HTTP status and decrypted reply. */
  readonly answers: ReadonlyArray<{ readonly status: number; readonly reply: Reply }>;
  /** The account's failed_login_tries afterwards. */
  readonly failedTries: number;
  readonly lockedUntil: unknown;
  /** How many `account.locked-out` audit events the server logged. */
  readonly lockouts: number;
}

/**
 * Signs up an active account, opens `count` sessions, then sends `count` wrong logins of the account at
 * once (each with a session of its own, as a failed login ends its session).
 */
export async function wrongLoginStorm(server: AuthsvcProcess, store: Store, count: number): Promise<LoginStorm> {
  const call = callerOf(server);
  const signup = await call('user-new', { email: STORM_EMAIL, password: PASSWORD, full_name: 'Storm' });
  assert.equal(signup['success'], true, JSON.stringify(signup));
  const userId = (signup['response'] as { user_id: number }).user_id;
  await sqlOf(store)('users')
    .where('user_id', userId)
    .update({ email_verified: true, is_active: true, user_role: 'authenticated' });
  const sessions = await Promise.all(
    Array.from({ length: count }, async () => {
      const opened = await call('session-new', sessionNewBody(null));
      return (opened['response'] as { session_token: string }).session_token;
    }),
  );
  const answers = await Promise.all(
    sessions.map((session_token) =>
      postOnce(
        server.url,
        server.seal('user-login', { session_token, email: STORM_EMAIL, password: 'not the password' }),
      ),
    ),
  );
  const row: { failed_login_tries: unknown; locked_until: unknown } = await sqlOf(store)('users')
    .where('user_id', userId)
    .first('failed_login_tries', 'locked_until');
  return {
    answers: answers.map((a) => ({ status: a.status, reply: server.open(a.text) })),
    failedTries: Number(row.failed_login_tries),
    lockedUntil: row.locked_until,
    lockouts: server.logs.filter((l) => l['audit'] === 'account.locked-out').length,
  };
}

export interface RefreshRace {
  /** Each round's refresh replies (exactly one of them succeeded) and the verification of the winner's key. */
  readonly rounds: ReadonlyArray<{ readonly replies: readonly Reply[]; readonly verified: Reply }>;
  /** The user's live no-session keys at the end. */
  readonly liveKeys: number;
}

const RACER = { user_id: 40, user_role: 'authenticated' } as const;

/**
 * Issues a no-session key to a new user 40, then `rounds` times sends `racers` refreshes of its refresh
 * token at once: exactly one must win each round; its key is verified and refreshed in the next.
 */
export async function refreshRace(call: Call, store: Store, racers: number, rounds: number): Promise<RefreshRace> {
  await insertUsers(store, [{ userId: RACER.user_id, role: RACER.user_role }]);
  const lifetimes = { expires_seconds: 600, not_valid_before: 0, refresh_expires: 600, refresh_nbf: 0 };
  const issued = await call('apikey-new-nosession', { ...KEY_ISSUE, ...lifetimes, ...RACER });
  assert.equal(issued['success'], true, JSON.stringify(issued));
  let response = issued['response'] as { apikey: string; refresh_token: string };
  const played: Array<{ replies: Reply[]; verified: Reply }> = [];
  for (let round = 0; round < rounds; round++) {
    const body = {
      apikey_dict: JSON.parse(response.apikey) as unknown,
      ...RACER,
      refresh_token: response.refresh_token,
      ip_address: '192.0.2.1',
      ...lifetimes,
    };
    const replies = await Promise.all(Array.from({ length: racers }, () => call('apikey-refresh-nosession', body)));
    const winners = replies.filter((r) => r['success'] === true);
    assert.equal(winners.length, 1, `round ${round}: ${JSON.stringify(replies.map((r) => r['failure_reason']))}`);
    response = winners[0]!['response'] as typeof response;
    const verified = await call('apikey-verify-nosession', {
      apikey_dict: JSON.parse(response.apikey) as unknown,
      ...RACER,
    });
    played.push({ replies, verified });
  }
  const live = await sqlOf(store)('apikeys_nosession').where('user_id', RACER.user_id).count({ n: '*' });
  return { rounds: played, liveKeys: Number(live[0]?.n) };
}

export interface LockRace {
  /** How many issuance requests were sent, and how many issued a key. */
  readonly sent: number;
  readonly issued: number;
  /** Issuance requests answered 503 (they issued nothing). */
  readonly unavailable: number;
  /** Issued keys that still verified once the lock had answered, and once the user was unlocked again. */
  readonly verifiedAfterLock: number;
  readonly verifiedAfterUnlock: number;
  /** Issued refresh tokens that could still be exchanged once the user was unlocked again. */
  readonly refreshedAfterUnlock: number;
}

const HOLDER = { user_id: 41, user_role: 'authenticated' } as const;

interface Issued {
  readonly apikey: string;
  readonly refresh_token: string;
}

/**
 * A superuser locks user 41 while `parallel` loops keep asking for its no-session keys (the lock goes
 * out once `lockAfter` keys have been issued; the loops stop when it has answered, or at `maxRequests`).
 * Then every key issued must fail to verify and every refresh token to refresh, also after the unlock
 * (docs/design.md#revocation-fence: a revocation is a fence). Counts what did not fail.
 */
export async function lockRace(
  server: AuthsvcProcess,
  store: Store,
  options: { readonly parallel: number; readonly lockAfter: number; readonly maxRequests: number },
): Promise<LockRace> {
  const call = callerOf(server);
  await insertUsers(store, [{ userId: HOLDER.user_id, role: HOLDER.user_role }]);
  const admin = await openSessionOn(server, 1);
  const lifetimes = { expires_seconds: 600, not_valid_before: 0, refresh_expires: 600, refresh_nbf: 0 };
  const lock = (action: 'lock' | 'unlock') =>
    call('user-lock', {
      user_id: 1,
      user_role: 'superuser',
      session_token: admin,
      target_userid: HOLDER.user_id,
      action,
    });

  const issued: Issued[] = [];
  let sent = 0;
  let unavailable = 0;
  let locked: Promise<Reply> | null = null;
  let lockAnswered = false;
  const loop = async (): Promise<void> => {
    while (!lockAnswered && sent < options.maxRequests) {
      sent++;
      const body = server.seal('apikey-new-nosession', { ...KEY_ISSUE, ...lifetimes, ...HOLDER });
      const answer = await postOnce(server.url, body);
      // A 503 (a deadlock victim on MariaDB, say) issued nothing and is counted; anything else but 200 fails.
      if (answer.status === 503) unavailable++;
      else assert.equal(answer.status, 200, answer.text);
      const reply = server.open(answer.text);
      if (reply['success'] === true) issued.push(reply['response'] as Issued);
      if (locked === null && issued.length >= options.lockAfter) {
        locked = lock('lock');
        void locked.then(() => (lockAnswered = true));
      }
    }
  };
  await Promise.all(Array.from({ length: options.parallel }, loop));
  const lockReply: Reply = await (locked ?? lock('lock'));
  assert.equal(lockReply['success'], true, JSON.stringify(lockReply));

  // As the superuser, so that only the key itself decides (not the caller's standing).
  const verifies = async (key: Issued): Promise<boolean> =>
    (
      await call('apikey-verify-nosession', {
        apikey_dict: JSON.parse(key.apikey) as unknown,
        user_id: 1,
        user_role: 'superuser',
      })
    )['success'] === true;
  const count = async (keys: readonly Issued[], test: (key: Issued) => Promise<boolean>): Promise<number> =>
    (await Promise.all(keys.map(test))).filter(Boolean).length;
  // One at a time: concurrent rotations deadlock one another on MariaDB (refresh_tokens.apikey_hash has
  // no index, so the rotation's DELETE locks every row it scans), which is not what this race is about.
  const countInTurn = async (keys: readonly Issued[], test: (key: Issued) => Promise<boolean>): Promise<number> => {
    let passed = 0;
    for (const key of keys) if (await test(key)) passed++;
    return passed;
  };

  const verifiedAfterLock = await count(issued, verifies);
  const unlocked = await lock('unlock');
  assert.equal(unlocked['success'], true, JSON.stringify(unlocked));
  const verifiedAfterUnlock = await count(issued, verifies);
  const refreshedAfterUnlock = await countInTurn(
    issued,
    async (key) =>
      (
        await call('apikey-refresh-nosession', {
          apikey_dict: JSON.parse(key.apikey) as unknown,
          ...HOLDER,
          refresh_token: key.refresh_token,
          ip_address: KEY_ISSUE.ip_address,
          ...lifetimes,
        })
      )['success'] === true,
  );
  return { sent, unavailable, issued: issued.length, verifiedAfterLock, verifiedAfterUnlock, refreshedAfterUnlock };
}
