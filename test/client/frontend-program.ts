/**
 * A frontend as a strict-TypeScript user writes it: no `!` anywhere. typed-replies.test.ts compiles
 * this file alone with `--strict` and checks it holds no non-null assertion; the `@ts-expect-error`
 * lines must stay errors, so the failure side stays typed too.
 */
import { createClient, failureCodeOf } from '../../src/client/index.js';
import type { ActionFailure, AuthsvcClient, FailureReason, FailureReply } from '../../src/client/index.js';

const IP = { clientIp: '198.51.100.20' };

export async function logIn(client: AuthsvcClient, email: string, password: string): Promise<number | string> {
  const session = await client.request(
    'session-new',
    { ip_address: IP.clientIp, user_agent: 'demo', user_id: null, expires: 7, extra_info_json: null },
    IP,
  );
  if (!session.success) return session.failure_reason;
  const token: string = session.response.session_token;
  const login = await client.request('user-login', { session_token: token, email, password }, IP);
  if (login.success) {
    const userId: number = login.response.user_id;
    const role: string = login.response.user_role;
    return `${userId} ${role}`;
  }
  // The failure side: the reason is one of the action's texts and maps back to its code.
  const reason: FailureReason<ActionFailure<'user-login'>> = login.failure_reason;
  const code: ActionFailure<'user-login'> | null = failureCode(login);
  // @ts-expect-error -- on failure the items may be null
  const lost: number = login.response.user_id;
  return `${reason} ${code ?? ''} ${String(lost)}`;
}

function failureCode<K extends 'user-login'>(reply: FailureReply<K>): ActionFailure<K> | null {
  return failureCodeOf(reply.failure_reason) as ActionFailure<K> | null;
}

export async function checkAccess(client: AuthsvcClient, userId: number): Promise<boolean> {
  const reply = await client.request(
    'user-check-access',
    {
      user_id: userId,
      user_role: 'authenticated',
      action: 'view',
      target_name: 'doc',
      target_owner: userId,
      target_visibility: 'private',
      target_sharedwith: '',
    },
    IP,
  );
  if (reply.success) return reply.response.explanation.reason !== '';
  // @ts-expect-error -- not one of user-check-access's failure texts
  return reply.failure_reason === 'user exists';
}

export async function signUp(client: AuthsvcClient): Promise<string> {
  const reply = await client.request(
    'user-new',
    { email: 'new@example.com', password: 'correct horse battery staple', full_name: 'New User' },
    IP,
  );
  if (!reply.success) return reply.failure_reason;
  const systemId: string = reply.response.system_id;
  const userId: number = reply.response.user_id;
  return `${userId} ${systemId}`;
}

export function makeClient(url: string, secret: string): AuthsvcClient {
  return createClient({ url, secret });
}

export function unknownAction(client: AuthsvcClient): Promise<unknown> {
  // @ts-expect-error -- not an action
  return client.request('user-teleport', {}, IP);
}
