/**
 * The policy across processes (docs/design.md#worker-processes, docs/design.md#signals-reach-the-primary-only: SIGHUP
 * goes to the primary).
 *
 * The primary keeps the document in force (the exact bytes it checked). On SIGHUP it checks the
 * permissions file again: a valid one becomes the document in force and goes to every worker, each
 * of which swaps it in at once; an invalid one is refused with the lint report in the log, and
 * nothing changes anywhere. A worker never reads the file itself: before reading its configuration
 * it asks the primary for the document in force, so a worker (re)started after a refused reload
 * enforces the old policy instead of failing on the invalid file, and one started after a valid
 * reload enforces the new one. A worker reports the SHA-256 of its policy when ready; the primary
 * sends the document again if a reload happened in between.
 */
import cluster from 'node:cluster';
import { createHash } from 'node:crypto';
import type { Logger } from '../log/logger.js';
import type { AuditSink } from '../log/audit.js';
import { auditReload, checkPolicyFile } from '../services/policy/reload.js';
import { isPrimaryMessage } from './messages.js';
import type { PolicyMessage, PolicyRequestMessage } from './messages.js';

/** A worker waits this long for the primary's answer, then reads the file as a single process would. */
const REQUEST_TIMEOUT_MS = 10_000;

export interface PolicyKeeper {
  /** The message that hands the document in force to a worker. */
  message(): PolicyMessage;
  readonly sha256: () => string;
  /** SIGHUP: checks the file; on success the document in force changes and the message to broadcast is returned. */
  reload(): PolicyMessage | null;
}

const messageOf = (bytes: Buffer, sha256: string): PolicyMessage => ({
  type: 'authsvc:policy',
  document: bytes.toString('base64'),
  sha256,
});

/** The primary records each reload's audit event once (the workers, which only apply it, record none). */
export function policyKeeper(path: string, initial: Buffer, log: Logger, audit: AuditSink): PolicyKeeper {
  let bytes = initial;
  let sha256 = createHash('sha256').update(bytes).digest('hex');
  return {
    message: () => messageOf(bytes, sha256),
    sha256: () => sha256,
    reload() {
      const checked = checkPolicyFile(path);
      if (!checked.ok) {
        log.error('policy reload refused; the policy in force stays', {
          path,
          in_force_sha256: sha256,
          problems: checked.problems,
          pid: process.pid,
        });
        auditReload(audit, { ok: false, problems: checked.problems }, sha256);
        return null;
      }
      const previous = sha256;
      bytes = checked.bytes;
      sha256 = checked.compiled.sha256;
      auditReload(audit, { ok: true, sha256, changed: previous !== sha256 }, previous);
      log.info('policy accepted; sending it to every worker', { path, sha256, previous_sha256: previous });
      return messageOf(bytes, sha256);
    },
  };
}

/** In a worker, before its configuration: the document the primary enforces (null: no answer in time). */
export function policyFromPrimary(timeoutMs = REQUEST_TIMEOUT_MS): Promise<Buffer | null> {
  if (!cluster.isWorker || process.send === undefined) return Promise.resolve(null);
  return new Promise((resolve) => {
    const onMessage = (message: unknown): void => {
      if (!isPrimaryMessage(message) || message.type !== 'authsvc:policy') return;
      done(Buffer.from(message.document, 'base64'));
    };
    const timer = setTimeout(() => done(null), timeoutMs);
    const done = (bytes: Buffer | null): void => {
      clearTimeout(timer);
      process.off('message', onMessage);
      resolve(bytes);
    };
    process.on('message', onMessage);
    const request: PolicyRequestMessage = { type: 'authsvc:policy-request' };
    process.send?.(request);
  });
}
