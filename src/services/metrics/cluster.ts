/**
 * /metrics with workers: the sum over every process, whichever worker the scrape reaches.
 *
 * The worker that receives GET /metrics asks the primary; the primary asks every live worker for its
 * registry (as JSON), adds its own, sums them with prom-client's `AggregatorRegistry.aggregate` and
 * answers the text. prom-client's own `clusterMetrics()` is not used: it leaves out the primary's
 * registry (where policy reloads are counted) and fails the whole scrape after 5 s if one worker does
 * not answer; here a worker that does not answer within COLLECT_TIMEOUT_MS is left out of that scrape
 * (and the scrape says how many processes it sums, in `authsvc_metrics_processes`).
 *
 * The messages are node:cluster IPC messages of their own types (`authsvc:metrics-…`); the other
 * listeners on the same channel (admission, policy, the workers' table) ignore them, and these
 * listeners ignore theirs.
 */
import { AggregatorRegistry } from 'prom-client';
import type { Registry } from 'prom-client';

/** One end of a worker's IPC channel (the primary's `worker`, or the worker's `process`). */
export interface MetricsChannel {
  send(message: unknown): void;
  onMessage(listener: (message: unknown) => void): void;
}

/** One process's registry as prom-client's JSON (`getMetricsAsJSON`), the form `aggregate` sums. */
type Json = readonly object[];

interface ScrapeRequest {
  readonly type: 'authsvc:metrics-request';
  readonly id: number;
}
interface ScrapeAnswer {
  readonly type: 'authsvc:metrics-text';
  readonly id: number;
  readonly text: string;
}
interface CollectRequest {
  readonly type: 'authsvc:metrics-collect';
  readonly id: number;
}
interface CollectAnswer {
  readonly type: 'authsvc:metrics-report';
  readonly id: number;
  readonly metrics: Json;
}

/** How long the primary waits for each worker's figures. */
const COLLECT_TIMEOUT_MS = 2000;
/** How long a worker waits for the primary's sum (then answers 503). */
export const SCRAPE_TIMEOUT_MS = 4000;

function typed<T extends { type: string; id: number }>(message: unknown, type: T['type']): message is T {
  return (
    typeof message === 'object' &&
    message !== null &&
    'type' in message &&
    message.type === type &&
    'id' in message &&
    typeof message.id === 'number'
  );
}

/** In a worker: answers the primary's collect requests with this process's registry. */
export function answerCollects(channel: MetricsChannel, figures: () => Promise<Json>): void {
  channel.onMessage((message) => {
    if (!typed<CollectRequest>(message, 'authsvc:metrics-collect')) return;
    void figures().then((metrics) => {
      const answer: CollectAnswer = { type: 'authsvc:metrics-report', id: message.id, metrics };
      channel.send(answer);
    });
  });
}

/** In a worker: a scrape is the primary's sum over every process; null when it does not answer in time. */
export function scrapeThroughPrimary(channel: MetricsChannel): () => Promise<string | null> {
  let next = 0;
  const pending = new Map<number, (text: string | null) => void>();
  channel.onMessage((message) => {
    if (!typed<ScrapeAnswer>(message, 'authsvc:metrics-text')) return;
    pending.get(message.id)?.(message.text);
  });
  return () =>
    new Promise((resolve) => {
      const id = ++next;
      const timer = setTimeout(() => done(null), SCRAPE_TIMEOUT_MS);
      const done = (text: string | null): void => {
        clearTimeout(timer);
        pending.delete(id);
        resolve(text);
      };
      pending.set(id, done);
      const request: ScrapeRequest = { type: 'authsvc:metrics-request', id };
      channel.send(request);
    });
}

export interface MetricsHub {
  /** A worker's channel, from its fork; returns the function to call when the worker is gone. */
  attach(channel: MetricsChannel): () => void;
}

/** In the primary: answers every worker's scrape with the sum over the live workers and itself. */
export function metricsHub(own: Registry): MetricsHub {
  const live = new Set<MetricsChannel>();
  let nextRound = 0;
  const rounds = new Map<number, (metrics: Json) => void>();

  async function sum(): Promise<string> {
    const round = ++nextRound;
    const reports: Json[] = [await own.getMetricsAsJSON()];
    const expected = [...live];
    await new Promise<void>((resolve) => {
      let waiting = expected.length;
      const timer = setTimeout(finish, COLLECT_TIMEOUT_MS);
      function finish(): void {
        clearTimeout(timer);
        rounds.delete(round);
        resolve();
      }
      if (waiting === 0) return finish();
      rounds.set(round, (metrics) => {
        reports.push(metrics);
        if (--waiting === 0) finish();
      });
      const request: CollectRequest = { type: 'authsvc:metrics-collect', id: round };
      for (const channel of expected) channel.send(request);
    });
    return AggregatorRegistry.aggregate([...reports, [processesGauge(reports.length)]]).metrics();
  }

  return {
    attach(channel) {
      live.add(channel);
      channel.onMessage((message) => {
        if (typed<CollectAnswer>(message, 'authsvc:metrics-report')) rounds.get(message.id)?.(message.metrics);
        else if (typed<ScrapeRequest>(message, 'authsvc:metrics-request')) {
          const { id } = message;
          void sum().then((text) => {
            const answer: ScrapeAnswer = { type: 'authsvc:metrics-text', id, text };
            channel.send(answer);
          });
        }
      });
      return () => live.delete(channel);
    },
  };
}

/** How many processes a scrape sums, as one more registry's JSON (the form `aggregate` takes). */
const processesGauge = (count: number): object => ({
  name: 'authsvc_metrics_processes',
  help: 'Processes whose figures this scrape sums (the primary and every worker that answered in time).',
  type: 'gauge',
  aggregator: 'sum',
  values: [{ value: count, labels: {} }],
});
