/**
 * An action = its wire contract (src/protocol) + a plain handler `(deps, input, meta) → Result` +
 * its end-user messages. Handlers never see HTTP.
 */
import type { AuditSink } from '../audit/audit.js';
import type { FailureCode } from '../domain/errors.js';
import type { Clock, Random } from '../domain/ports.js';
import type { Result } from '../domain/result.js';
import type { PolicySource } from '../policy/compiled.js';
import type { ActionInput, ActionName, ActionOutput, RequestId } from '../protocol/index.js';
import type { PasswordService } from '../passwords/service.js';
import type { Store } from '../store/index.js';

export interface Deps {
  readonly clock: Clock;
  readonly random: Random;
  readonly store: Store;
  readonly audit: AuditSink;
  readonly passwords: PasswordService;
  /** The compiled permissions policy in force (pure: no database). */
  readonly policy: PolicySource;
  readonly settings: {
    readonly sessionExpiryDays: number;
    /** Failed password checks of one account that trigger the temporary lock (decision 11). */
    readonly userLockTries: number;
    readonly userLockTimeSeconds: number;
    /** Seconds in which a just-rotated refresh token presented again fails harmlessly (decision 18). */
    readonly refreshGraceSeconds: number;
  };
}

export interface Meta {
  readonly reqid: RequestId;
  /** The end user's IP address, as the frontend reported it. */
  readonly clientIp: string;
}

/** Failures every action can return; their messages are the same everywhere (see dispatch). */
export type CommonFailure = 'invalid_params' | 'db_unavailable' | 'busy';

export interface ActionDef<K extends ActionName, C extends FailureCode> {
  readonly name: K;
  readonly messages: {
    /** Shown to the end user on success. */
    readonly ok: string;
    /** Shown to the end user per failure: safe, never revealing whether an account exists. */
    readonly failures: Readonly<Record<Exclude<C, CommonFailure>, string>>;
  };
  handle(deps: Deps, input: ActionInput<K>, meta: Meta): Promise<Result<ActionOutput<K>, C | CommonFailure>>;
}

/** The same definition with its failure codes widened, as the registry holds it. */
export interface RegisteredAction<K extends ActionName> {
  readonly name: K;
  readonly messages: {
    readonly ok: string;
    readonly failures: Readonly<Partial<Record<FailureCode, string>>>;
  };
  handle(deps: Deps, input: ActionInput<K>, meta: Meta): Promise<Result<ActionOutput<K>>>;
}

export function defineAction<K extends ActionName, C extends FailureCode = never>(
  def: ActionDef<K, C>,
): RegisteredAction<K> {
  return def;
}
