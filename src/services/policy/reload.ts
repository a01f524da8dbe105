/**
 * Reloading the policy (SIGHUP): the file `--permissions` named is read and checked again; a valid
 * policy replaces the one in force, an invalid one is refused with the lint report in the log and the
 * old one stays. The swap is one assignment, so a request is decided wholly by the old policy or
 * wholly by the new one (handlers call `current()` once per decision).
 *
 * With workers (node:cluster), the primary checks the file with `checkPolicyFile` and sends the bytes
 * it checked to every worker, which applies them with `applyPolicyBytes`: every process then enforces
 * the same document, even if the file changes again meanwhile. "Atomic" is per process
 * (docs/design.md#signals-reach-the-primary-only).
 */
import type { AuditSink } from '../../log/audit.js';
import type { Logger } from '../../log/logger.js';
import type { CompiledPolicy, PolicySource } from './engine/compiled-policy.js';
import { compilePolicyBytes, compilePolicyFile, problemLines } from './authoring/policy-file.js';

export interface SwappablePolicy extends PolicySource {
  /** Puts `next` in force; returns the policy it replaced. */
  replace(next: CompiledPolicy): CompiledPolicy;
}

export function swappablePolicy(initial: CompiledPolicy): SwappablePolicy {
  let inForce = initial;
  return {
    current: () => inForce,
    replace(next) {
      const previous = inForce;
      inForce = next;
      return previous;
    },
  };
}

export type PolicyCheck = { ok: true; bytes: Buffer; compiled: CompiledPolicy } | { ok: false; problems: string[] };

/** Reads and checks a policy file; nothing changes yet. */
export function checkPolicyFile(path: string): PolicyCheck {
  const checked = compilePolicyFile(path);
  return checked.ok ? { ok: true, bytes: checked.bytes, compiled: checked.compiled } : checked;
}

export type ReloadOutcome = { ok: true; sha256: string; changed: boolean } | { ok: false; problems: string[] };

/** Puts a checked policy in force and logs it. */
export function applyPolicy(source: SwappablePolicy, next: CompiledPolicy, log: Logger, path: string): ReloadOutcome {
  const previous = source.replace(next);
  const changed = previous.sha256 !== next.sha256;
  log.info(changed ? 'policy reloaded' : 'policy reloaded, unchanged', {
    path,
    sha256: next.sha256,
    previous_sha256: previous.sha256,
    pid: process.pid,
  });
  return { ok: true, sha256: next.sha256, changed };
}

/** Logs the refusal of a policy with every problem; the policy in force stays. */
export function refusePolicy(source: PolicySource, problems: string[], log: Logger, path: string): ReloadOutcome {
  log.error('policy reload refused; the policy in force stays', {
    path,
    in_force_sha256: source.current().sha256,
    problems,
    pid: process.pid,
  });
  return { ok: false, problems };
}

/** A single process's SIGHUP: re-read the file, then replace or refuse; either is an audit event. */
export function reloadPolicyFile(source: SwappablePolicy, path: string, log: Logger, audit: AuditSink): ReloadOutcome {
  const previous = source.current().sha256;
  const checked = checkPolicyFile(path);
  const outcome = checked.ok
    ? applyPolicy(source, checked.compiled, log, path)
    : refusePolicy(source, checked.problems, log, path);
  auditReload(audit, outcome, previous);
  return outcome;
}

/** The audit event of one reload, accepted or refused (no request caused it: reqid null). */
export function auditReload(audit: AuditSink, outcome: ReloadOutcome, previous: string): void {
  audit.record(
    outcome.ok
      ? {
          event: 'policy.reloaded',
          reqid: null,
          detail: { sha256: outcome.sha256, previous_sha256: previous, changed: outcome.changed },
        }
      : {
          event: 'policy.reload-refused',
          reqid: null,
          detail: { in_force_sha256: previous, problems: outcome.problems.length },
        },
  );
}

/**
 * A worker's side: bytes the primary checked. Compiling them again cannot fail unless the two
 * processes run different code, which is refused like an invalid file.
 */
export function applyPolicyBytes(source: SwappablePolicy, bytes: Uint8Array, log: Logger, path: string): ReloadOutcome {
  const compiled = compilePolicyBytes(bytes);
  if (!compiled.ok) return refusePolicy(source, problemLines(path, compiled.problems), log, path);
  return applyPolicy(source, compiled.compiled, log, path);
}
