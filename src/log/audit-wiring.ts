/**
 * The audit sink of one process, as the composition roots (the app, the cluster primary, the admin
 * command line) build it: the log always, the signed webhook queue when `webhookurl` is set, and any
 * extra sinks (the metrics count a few events by name). Each process has its own webhook queue: a
 * cluster's workers send their requests' events, the primary its policy reloads.
 */
import type { Clock, Random } from '../domain/ports.js';
import type { Logger } from './logger.js';
import { piiHasher } from './logger.js';
import { fanOut, logOutlet, publishingSink } from './audit.js';
import type { AuditSink } from './audit.js';
import { createWebhookSender } from './webhooks.js';
import type { WebhookSender, WebhookTarget, WebhookTuning } from './webhooks.js';

export interface AuditWiring {
  readonly sink: AuditSink;
  /** null when no webhookurl is set. */
  readonly webhook: WebhookSender | null;
}

/** What of the configuration the audit needs (Config has both). */
export interface AuditSettings {
  readonly webhook: WebhookTarget | null;
  readonly piisalt: string;
}

export function auditOf(
  settings: AuditSettings,
  log: Logger,
  clock: Clock,
  random: Random,
  more: { readonly sinks?: readonly AuditSink[]; readonly tuning?: Partial<WebhookTuning> } = {},
): AuditWiring {
  const webhook =
    settings.webhook === null
      ? null
      : createWebhookSender({
          target: settings.webhook,
          clock,
          random,
          log,
          ...(more.tuning === undefined ? {} : { tuning: more.tuning }),
        });
  const outlets = webhook === null ? [logOutlet(log)] : [logOutlet(log), webhook.outlet];
  return {
    sink: fanOut(publishingSink(clock, piiHasher(settings.piisalt), outlets), ...(more.sinks ?? [])),
    webhook,
  };
}

/** The metrics count a few audit events by name (lock-outs, policy reloads). */
export const metricsAuditSink = (metrics: { audited(event: string): void }): AuditSink => ({
  record: (event) => metrics.audited(event.event),
});
