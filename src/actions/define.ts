/**
 * An action = its declaration (src/protocol: schemas, rate class, failure codes) + a plain handler
 * `(deps, input, meta) → Result` + its end-user messages. Handlers never see HTTP.
 */
import type { PasskeyConfig } from '../accounts/passkeys.js';
import type { SecretBox } from '../accounts/secret-box.js';
import type { AuditSink } from '../log/audit.js';
import type { Clock, LoginBackoff, Random } from '../domain/ports.js';
import type { Result } from '../domain/result.js';
import type { Mailer } from '../services/mail/mailer.js';
import type { PolicySource } from '../services/policy/engine/compiled-policy.js';
import type {
  ActionFailure,
  ActionInput,
  ActionName,
  ActionOutput,
  CommonFailure,
  FailureCode,
  RequestId,
} from '../protocol/index.js';
import type { PasswordService } from '../accounts/passwords.js';
import type { Store } from '../services/store/index.js';

export interface Deps {
  readonly clock: Clock;
  readonly random: Random;
  readonly store: Store;
  readonly audit: AuditSink;
  readonly passwords: PasswordService;
  /** Sends the sign-up and forgot-password mails (src/services/mail). */
  readonly mailer: Mailer;
  /** The compiled permissions policy in force (pure: no database). */
  readonly policy: PolicySource;
  /** The growing wait before a failed password check is answered (docs/design.md#lock-out-and-login-back-off). */
  readonly loginBackoff: LoginBackoff;
  /** Seals and opens second-factor secrets at rest (docs/design.md#second-factors). */
  readonly secrets: SecretBox;
  /** The relying party of passkeys (docs/design.md#passkeys); null: passkeys are off. */
  readonly passkeys: PasskeyConfig | null;
  readonly settings: {
    /** The issuer of TOTP factors (the otpauth:// URI and the app's list). */
    readonly serverName: string;
    /** How long a session's second-factor proof lasts (docs/design.md#step-up). */
    readonly stepUpWindowSeconds: number;
    /** Roles that must enrol a second factor before a login completes. */
    readonly mfaRequiredRoles: readonly string[];
    readonly sessionExpiryDays: number;
    /**
     * Failed password checks of one account that trigger the temporary lock
     * (docs/design.md#lock-out-and-login-back-off).
     */
    readonly userLockTries: number;
    readonly userLockTimeSeconds: number;
    /**
     * Seconds in which a just-rotated refresh token presented again fails harmlessly
     * (docs/design.md#api-keys-and-refresh-tokens).
     */
    readonly refreshGraceSeconds: number;
  };
}

export interface Meta {
  readonly reqid: RequestId;
  /** The end user's IP address, as the frontend reported it. */
  readonly clientIp: string;
  /** The action being run (set by the dispatcher), for the audit events of code several actions share. */
  readonly action: ActionName;
}

/**
 * The server's half of an action: the declaration (src/protocol) says which failures it may return;
 * the definition gives each of them an end-user message and the handler that returns them.
 */
export interface ActionDef<K extends ActionName> {
  readonly name: K;
  readonly messages: {
    /** Shown to the end user on success. */
    readonly ok: string;
    /** Shown to the end user per declared failure: safe, never revealing whether an account exists. */
    readonly failures: Readonly<Record<Exclude<ActionFailure<K>, CommonFailure>, string>>;
  };
  handle(deps: Deps, input: ActionInput<K>, meta: Meta): Promise<Result<ActionOutput<K>, ActionFailure<K>>>;
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

/** A family's handlers, by the names its declarations use: none missing, none unknown. */
export type FamilyHandlers<F> = { readonly [K in keyof F & ActionName]: RegisteredAction<K> };

/** Binds a handler and its messages to the declaration named `name`. */
export function defineAction<K extends ActionName>(name: K, def: Omit<ActionDef<NoInfer<K>>, 'name'>): ActionDef<K> {
  return { name, ...def };
}
