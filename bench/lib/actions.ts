/**
 * What `npm run bench` drives: for each action, its fixtures (made through the protocol, as a frontend
 * would) and one closed-loop iteration. Every request goes through the Node client, so it is freshly
 * sealed (new IV, new timestamp, new reqid) and its reply is opened and checked (`reqid` must match,
 * `success` must be true).
 */
import { AuthsvcError, createClient } from '../../src/client/index.js';
import type { AuthsvcClient } from '../../src/client/index.js';
import { BENCH_ADMIN } from './server.js';

export const BENCH_ACTIONS = [
  'session-exists',
  'session-new',
  'user-check-access',
  'user-check-limit',
  'user-lookup-email',
  'apikey-verify',
  'apikey-verify-nosession',
  'user-passcheck-nosession',
  'user-login',
] as const;
export type BenchAction = (typeof BENCH_ACTIONS)[number];

/** Actions whose cost is one password hash verify: reported against the hash limit. */
export const HASH_BOUND: ReadonlySet<BenchAction> = new Set(['user-passcheck-nosession', 'user-login']);

export function isBenchAction(name: string): name is BenchAction {
  return (BENCH_ACTIONS as readonly string[]).includes(name);
}

/** One iteration: whether its reply was a success, and when the timed part started (performance.now()). */
export type Iteration = () => Promise<{ readonly ok: boolean; readonly startedAt: number; readonly failure?: string }>;

type Reply = {
  readonly success: boolean;
  readonly response: Record<string, unknown>;
  /** The server's failure_reason, or the client's error kind (e.g. `unavailable` for a 503). */
  readonly failure_reason?: string;
};
export type BenchCall = (action: string, body: Record<string, unknown>) => Promise<Reply>;

const IP = '192.0.2.1';
const SUPERUSER = { user_id: 1, user_role: 'superuser' } as const;

/** A client for `url` that sends any action untyped (the bench builds its bodies itself) and counts a thrown error as a failure. */
export function benchCaller(url: string, secret: string): { call: BenchCall; client: AuthsvcClient } {
  const client = createClient({ url, secret, timeoutMs: 30_000 });
  // The bench builds its bodies itself, so it sends them untyped.
  const request = (action: string, body: Record<string, unknown>): Promise<Reply> =>
    (client.request as unknown as (a: string, b: Record<string, unknown>, o: object) => Promise<Reply>).call(
      client,
      action,
      body,
      { clientIp: IP },
    );
  const call: BenchCall = async (action, body) => {
    try {
      return await request(action, body);
    } catch (error) {
      // A transport error, a refusal (503) or a reply that answers another reqid: counted, never hidden.
      const kind = error instanceof AuthsvcError ? error.kind : 'error';
      return { success: false, response: {}, failure_reason: kind };
    }
  };
  return { call, client };
}

const failureOf = (reply: Reply): { failure?: string } =>
  reply.success ? {} : { failure: reply.failure_reason ?? 'failed' };

async function must(call: BenchCall, action: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const reply = await call(action, body);
  if (!reply.success) throw new Error(`bench fixture: ${action} failed`);
  return reply.response;
}

const newSession = (userId: number | null): Record<string, unknown> => ({
  ip_address: IP,
  user_agent: 'bench',
  user_id: userId,
  expires: 1,
  extra_info_json: {},
});

/** One request of `name` with `body`, timed whole, as an iteration. */
export const timedCall =
  (call: BenchCall, name: string, body: Record<string, unknown>): Iteration =>
  async () => {
    const startedAt = performance.now();
    const reply = await call(name, body);
    return { ok: reply.success, startedAt, ...failureOf(reply) };
  };

/** Makes the fixtures `action` needs on the server behind `call`, and returns its iteration. */
export async function prepare(action: BenchAction, call: BenchCall): Promise<Iteration> {
  const timed = (name: string, body: Record<string, unknown>): Iteration => timedCall(call, name, body);
  const keyIssue = {
    ...SUPERUSER,
    issuer: 'bench',
    audience: 'api',
    subject: ['/api/a'],
    apiversion: 1,
    ip_address: IP,
  };
  switch (action) {
    case 'session-exists': {
      const session = await must(call, 'session-new', newSession(1));
      return timed(action, { session_token: session['session_token'] });
    }
    case 'session-new':
      return timed(action, newSession(1));
    case 'user-check-access':
      // The superuser viewing the anonymous user's public dataset: allowed, then users 1 and 2 are read.
      return timed(action, {
        ...SUPERUSER,
        action: 'view',
        target_name: 'dataset',
        target_owner: 2,
        target_visibility: 'public',
        target_sharedwith: '',
      });
    case 'user-check-limit':
      return timed(action, { ...SUPERUSER, limit_name: 'max_requests', value_to_check: 10 });
    case 'user-lookup-email':
      return timed(action, { email: BENCH_ADMIN.email.toUpperCase() });
    case 'apikey-verify': {
      const session = await must(call, 'session-new', newSession(1));
      const issued = await must(call, 'apikey-new', {
        ...keyIssue,
        expires_days: 1,
        not_valid_before: 0,
        user_agent: 'bench',
        session_token: session['session_token'],
      });
      return timed(action, { ...SUPERUSER, apikey_dict: JSON.parse(String(issued['apikey'])) as unknown });
    }
    case 'apikey-verify-nosession': {
      const issued = await must(call, 'apikey-new-nosession', {
        ...keyIssue,
        expires_seconds: 86_400,
        not_valid_before: 0,
        refresh_expires: 86_400,
        refresh_nbf: 0,
      });
      return timed(action, { ...SUPERUSER, apikey_dict: JSON.parse(String(issued['apikey'])) as unknown });
    }
    case 'user-passcheck-nosession':
      return timed(action, { email: BENCH_ADMIN.email, password: BENCH_ADMIN.password });
    case 'user-login':
      // A login always deletes the session it is given, so each one opens its own first; only the login is timed.
      return async () => {
        const session = await call('session-new', newSession(null));
        const startedAt = performance.now();
        const login = await call(action, {
          session_token: session.response['session_token'] ?? '',
          email: BENCH_ADMIN.email,
          password: BENCH_ADMIN.password,
        });
        return { ok: session.success && login.success, startedAt, ...failureOf(session.success ? login : session) };
      };
  }
}
