/**
 * The composition root: the only place that builds the real ports and wires them together (the
 * configuration and the policy it names are loaded and checked before, by setup/startup.ts). Tests call startApp with their own clock,
 * randomness, hash queue and log stream.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Writable } from 'node:stream';
import { secretBox } from './accounts/secret-box.js';
import { createDispatcher } from './actions/dispatch.js';
import type { Dispatcher } from './actions/dispatch.js';
import { fallbackStore, memoryAdmissionStore, storeLoginBackoff } from './services/admission/index.js';
import type { AdmissionStore, FallbackStore } from './services/admission/index.js';
import type { AuditSink } from './log/audit.js';
import { auditOf, metricsAuditSink } from './log/audit-wiring.js';
import { historySink } from './accounts/history.js';
import type { HistorySink } from './accounts/history.js';
import { notifySink } from './accounts/notify.js';
import type { NotifySink } from './accounts/notify.js';
import { createNotifyQueue } from './services/mail/notify-queue.js';
import type { NotifyOutcome, NotifyQueue, NotifyQueueOptions } from './services/mail/notify-queue.js';
import type { WebhookSender, WebhookTuning } from './log/webhooks.js';
import type { Config } from './config/load.js';
import { VERSION } from './config/version.js';
import { availableParallelism } from 'node:os';
import { setTimeout as sleepFor } from 'node:timers/promises';
import { noLoginBackoff, systemClock, randomSource } from './domain/ports.js';
import { fileClock } from './domain/test-clock.js';
import type { Clock, LoginBackoff, Random, Sleep } from './domain/ports.js';
import { singleProcessReport } from './http/health-report.js';
import type { WorkersReport } from './http/health-report.js';
import type { HttpMetrics } from './http/metrics.js';
import { closeGracefully, createHttpApp, listen } from './http/server.js';
import { createLogger, piiHasher } from './log/logger.js';
import { createSmtpMailer } from './services/mail/smtp.js';
import type { Logger } from './log/logger.js';
import type { MetricsChannel } from './services/metrics/cluster.js';
import { peerMatcher } from './services/metrics/peers.js';
import type { ServiceMetrics } from './services/metrics/port.js';
import { createHashQueue, defaultHashQueueOptions, createHasher } from './accounts/password-hashing.js';
import type { HashQueue, HashQueueOptions } from './accounts/password-hashing.js';
import { createPwnedChecker, noPwnedCheck } from './accounts/pwned.js';
import { passwordService } from './accounts/passwords.js';
import type { PasswordService } from './accounts/passwords.js';
import { loadPolicyFile } from './services/policy/load.js';
import type { LoadedPolicy } from './services/policy/load.js';
import { applyPolicyBytes, reloadPolicyFile, swappablePolicy } from './services/policy/reload.js';
import type { ReloadOutcome, SwappablePolicy } from './services/policy/reload.js';
import { prepareDatabase } from './setup/first-start.js';
import { startCleanup } from './services/store/cleanup-timer.js';
import { openStore } from './services/store/index.js';
import type { Store } from './services/store/index.js';

export interface AppOptions {
  readonly config: Config;
  /** The policy to enforce at start (loadStartup's); when absent it is read from config.permissionsPath. */
  readonly policy?: LoadedPolicy;
  readonly clock?: Clock;
  readonly random?: Random;
  /** The password-hash queue, or its bounds (default: about the core count per machine). */
  readonly hashQueue?: HashQueueOptions | HashQueue;
  readonly logStream?: Writable;
  /** Set in a cluster worker (src/cluster/worker.ts): the primary prepares the database and knows the workers. */
  readonly worker?: {
    readonly workers: () => WorkersReport;
    /** The primary's admission store, asked over IPC: limits and replay are exact across the workers. */
    readonly admission: AdmissionStore;
    /** The IPC channel to the primary, which sums every process's metrics for /metrics (metrics 1). */
    readonly metrics?: MetricsChannel;
    /** Resolves once the primary hands this worker no more connections (the drain, http/drain.ts). */
    readonly listenerClosed?: () => Promise<void>;
  };
  /** The admission store to use instead of the configured one (tests sharing one store between apps). */
  readonly admission?: AdmissionStore;
  /** How the login back-off waits (default: a timer); tests on a frozen clock record the waits instead. */
  readonly sleep?: Sleep;
  /** More audit sinks, each given every event (metrics, a test's recorder). */
  readonly auditSinks?: readonly AuditSink[];
  /** The webhook queue's bounds and timings (tests shrink them). */
  readonly webhookTuning?: Partial<WebhookTuning>;
  /** The security mail queue's bounds and retry delays (tests shorten them). */
  readonly mailTuning?: MailTuning;
}

export interface RunningApp {
  readonly url: string;
  readonly server: Server;
  readonly store: Store;
  readonly log: Logger;
  /** Set when this start created the superuser and wrote its credentials to a file. */
  readonly credentialsFile: string | null;
  /** The policy in force; reloads replace it. */
  readonly policy: SwappablePolicy;
  /** The webhook queue (null without webhookurl): its counts of delivered and dropped events. */
  readonly webhook: WebhookSender | null;
  /** SIGHUP: re-reads the --permissions file; a valid policy replaces the one in force, an invalid one is refused. */
  reloadPolicy(): ReloadOutcome;
  /** A policy document the cluster primary already checked (the same bytes for every worker). */
  applyPolicy(bytes: Uint8Array): ReloadOutcome;
  /** Runs the purge now, as its timer does (a worker has none: nothing happens). */
  purgeNow(): Promise<void>;
  close(): Promise<void>;
}

/** What every part of one process shares. */
interface Wiring {
  readonly config: Config;
  readonly clock: Clock;
  readonly random: Random;
  readonly log: Logger;
  /** For /health's uptime: when startApp was called. */
  readonly startedAtMs: number;
  /** Replay refusal, rate limits and login back-off; `status` says how Redis is doing. */
  readonly admission: FallbackStore;
  /** Every audit event: the log, the webhook queue, the metrics when they are on, the extra sinks. */
  readonly audit: AuditSink;
  /** null: metrics off. */
  readonly metrics: ServiceMetrics | null;
}

/**
 * Redis when `redisurl` is set, falling back to this instance's own exact store: the cluster
 * primary's (asked over IPC) in a worker, memory in a single process (docs/design.md#gcra-buckets).
 */
async function admissionOf(options: AppOptions, log: Logger, metrics: ServiceMetrics | null): Promise<FallbackStore> {
  const local = options.admission ?? options.worker?.admission ?? memoryAdmissionStore();
  const url = options.config.redisUrl;
  if (url === null) return fallbackStore(null, local, log);
  // Loaded only here: a process without `redisurl` never loads ioredis.
  const { redisAdmissionStore } = await import('./services/admission/redis-store.js');
  const redis = redisAdmissionStore(url);
  // Commands are not queued while connecting (docs/design.md#ioredis-no-offline-queue-short-timeouts): wait for the
  // connection, briefly, so the first requests use Redis.
  const connected = await redis.ready(REDIS_CONNECT_WAIT_MS).then(
    () => true,
    () => false,
  );
  const store = fallbackStore(redis, local, log, { onFallback: () => metrics?.redisFallback() });
  // Down from the start: one read through the fallback logs it and makes /health say so at once.
  if (!connected) await store.waitFor('b:startup-probe', 0);
  return {
    ...store,
    close() {
      store.close();
      void redis.close();
    },
  };
}

const REDIS_CONNECT_WAIT_MS = 2000;

function initialPolicy(options: AppOptions): LoadedPolicy {
  if (options.policy !== undefined) return options.policy;
  const loaded = loadPolicyFile(options.config.permissionsPath);
  if (!loaded.ok) throw new Error(`the policy cannot be loaded:\n${loaded.problems.join('\n')}`);
  return loaded.policy;
}

function passwordsOf({ config, clock }: Wiring, queue: HashQueue): PasswordService {
  const hasher = createHasher(config.passHash, queue);
  return passwordService(hasher, config.passPolicy, {
    serverName: config.serverName,
    pwned: config.pwnedUrl === null ? noPwnedCheck : createPwnedChecker({ url: config.pwnedUrl, clock }),
    pwnedFailClosed: config.pwnedFailClosed,
  });
}

function dispatcherOf(
  wiring: Wiring,
  store: Store,
  policy: SwappablePolicy,
  passwords: PasswordService,
  loginBackoff: LoginBackoff,
): Dispatcher {
  const { config, clock, random, audit } = wiring;
  return createDispatcher({
    clock,
    random,
    store,
    audit,
    passwords,
    mailer: createSmtpMailer(config.email),
    policy,
    loginBackoff,
    secrets: secretBox(config.keyring),
    passkeys: config.passkeys === null ? null : { ...config.passkeys, handleKey: config.piisalt },
    settings: {
      serverName: config.serverName,
      stepUpWindowSeconds: config.stepUpWindowSeconds,
      mfaRequiredRoles: config.mfaRequiredRoles,
      sessionExpiryDays: config.sessionExpiryDays,
      userLockTries: config.userLockTries,
      userLockTimeSeconds: config.userLockTimeSeconds,
      refreshGraceSeconds: config.refreshGraceSeconds,
    },
  });
}

async function serveHttp(
  wiring: Wiring,
  store: Store,
  dispatcher: Dispatcher,
  options: AppOptions,
): Promise<{ server: Server; url: string }> {
  const workers = options.worker?.workers ?? (() => singleProcessReport(process.pid));
  const { config, clock, random, log, startedAtMs } = wiring;
  const app = createHttpApp({
    keyring: config.keyring,
    debugmode: config.debugmode,
    allowedHosts: new Set(config.allowedHosts),
    maxBodySize: config.maxBodySize,
    messageTtlSeconds: config.messageTtlSeconds,
    clock,
    random,
    dispatcher,
    admission: wiring.admission,
    rateLimits: config.rateLimits,
    audit: wiring.audit,
    log,
    pii: piiHasher(config.piisalt),
    health: {
      redis: () => wiring.admission.status(),
      version: VERSION,
      startedAtMs,
      now: () => clock.now(),
      database: (budgetMs) => store.ping(budgetMs),
      workers,
    },
    metrics: wiring.metrics === null ? null : await httpMetricsOf(wiring.metrics, config, options.worker?.metrics),
  });
  const server = await listen(app, { host: config.listen, port: config.port, tls: config.tls });
  const { address, port } = server.address() as AddressInfo;
  const scheme = config.tls === null ? 'http' : 'https';
  return { server, url: `${scheme}://${address.includes(':') ? `[${address}]` : address}:${port}/` };
}

/**
 * The metrics of this process when `metrics` is 1 (null otherwise). prom-client is imported here, on
 * demand: with metrics off it is never loaded, and nothing is registered or counted.
 */
async function metricsOf(config: Config, hashes: HashQueue, redisUp: () => boolean): Promise<ServiceMetrics | null> {
  if (config.metrics === null) return null;
  const { createServiceMetrics } = await import('./services/metrics/prometheus.js');
  return createServiceMetrics({ hashes, ...(config.redisUrl === null ? {} : { redisUp }) });
}

/** What the transport needs for /metrics: in a worker, the scrape is the primary's sum over every process. */
async function httpMetricsOf(
  metrics: ServiceMetrics,
  config: Config,
  toPrimary: MetricsChannel | undefined,
): Promise<HttpMetrics> {
  const allowPeer = peerMatcher(config.metrics?.allow ?? []);
  if (toPrimary === undefined) return { observer: metrics, allowPeer, scrape: () => metrics.scrape() };
  const { answerCollects, scrapeThroughPrimary } = await import('./services/metrics/cluster.js');
  const own = await metrics.scrape();
  answerCollects(toPrimary, () => metrics.figures());
  const summed = scrapeThroughPrimary(toPrimary);
  return {
    observer: metrics,
    allowPeer,
    scrape: async () => {
      const text = await summed();
      return text === null ? null : { contentType: own.contentType, text };
    },
  };
}

/** A single process prepares its database; a cluster worker finds it prepared by its primary. */
async function prepareUnlessWorker(options: AppOptions, wiring: Wiring): Promise<string | null> {
  if (options.worker !== undefined) return null;
  const prepared = await prepareDatabase(wiring);
  await prepared.store.close();
  return prepared.credentialsFile;
}

export type MailTuning = Partial<Pick<NotifyQueueOptions, 'capacity' | 'retryDelaysMs' | 'throttleMs'>>;

/** How long a command of the admin line waits for its security mails before it exits. */
const MAIL_WAIT_MS = 10_000;

/** The security mail (`notify`): null when no kind is on. */
function securityMailOf(
  config: Config,
  clock: Clock,
  log: Logger,
  history: HistorySink,
  metrics: ServiceMetrics | null,
  tuning: MailTuning = {},
): { readonly sink: NotifySink; readonly queue: NotifyQueue } | null {
  if (config.notify.length === 0) return null;
  const queue = createNotifyQueue({
    ...tuning,
    mailer: createSmtpMailer(config.email),
    clock,
    log,
    ...(metrics === null ? {} : { onOutcome: (outcome: NotifyOutcome) => metrics.securityMail(outcome) }),
  });
  const sink = notifySink({ kinds: config.notify, queue, clock, serverName: config.serverName, history });
  return { sink, queue };
}

/** The actions as the server runs them, without HTTP: what the admin command line (src/admin) calls. */
export interface ActionRunner {
  readonly dispatcher: Dispatcher;
  readonly store: Store;
  readonly clock: Clock;
  /** Rows a purge statement deletes (`purgebatch`). */
  readonly purgeBatch: number;
  /** Set when this run created the superuser and wrote its credentials to a file (a fresh database). */
  readonly credentialsFile: string | null;
  close(): Promise<void>;
}

/**
 * The dispatcher wired exactly as startApp wires it (same store, passwords, policy, mailer, audit
 * sink, settings), so that a command of the admin line runs the action handlers themselves, never a
 * copy of their rules. The database is prepared as a server start prepares it (migrations, fixed
 * accounts: idempotent), so the command line works on a database no server has opened yet. What it
 * leaves out is what only serving needs: no HTTP listener, no purge timer, no Redis (no request is
 * rate limited and no login is backed off here), a single-slot hash queue.
 */
export async function openActionRunner(options: {
  readonly config: Config;
  readonly policy: LoadedPolicy;
  readonly logStream: Writable;
}): Promise<ActionRunner> {
  const { config } = options;
  const clock = config.testClockFile === null ? systemClock : fileClock(config.testClockFile);
  const log = createLogger(options.logStream, config.logLevel, config.logFormat);
  // The command's changes are audited as the server's are: logged, and sent to the webhook if one is set.
  const history = historySink({ clock, log, retentionDays: config.eventRetentionDays });
  const mail = securityMailOf(config, clock, log, history, null);
  const audit = auditOf(config, log, clock, randomSource, { sinks: [history, ...(mail === null ? [] : [mail.sink])] });
  const wiring: Wiring = {
    config,
    clock,
    random: randomSource,
    log,
    startedAtMs: clock.now(),
    admission: fallbackStore(null, memoryAdmissionStore(), log),
    audit: audit.sink,
    metrics: null,
  };
  // The maintenance store (no statement timeout): a purge of many rows must not be cut short.
  const { store, credentialsFile } = await prepareDatabase(wiring);
  history.attach(store.userEvents);
  mail?.sink.attach(store);
  const passwords = passwordsOf(wiring, createHashQueue(defaultHashQueueOptions(availableParallelism())));
  const policy = swappablePolicy(options.policy.compiled);
  const dispatcher = dispatcherOf(wiring, store, policy, passwords, noLoginBackoff);
  return {
    dispatcher,
    store,
    clock,
    purgeBatch: config.purge.batch,
    credentialsFile,
    async close() {
      await audit.webhook?.close();
      // A command's mails go out before it exits, as long as the SMTP server answers within the wait.
      if (mail !== null) await Promise.race([mail.queue.idle(), sleepFor(MAIL_WAIT_MS, undefined, { ref: false })]);
      await mail?.queue.close(0);
      wiring.admission.close();
      await store.close();
    },
  };
}

export async function startApp(options: AppOptions): Promise<RunningApp> {
  const { config } = options;
  // The test clock (debugmode only) is read by every process, so tests across processes share one time.
  const clock = options.clock ?? (config.testClockFile === null ? systemClock : fileClock(config.testClockFile));
  const log = createLogger(options.logStream ?? process.stdout, config.logLevel, config.logFormat);
  const queue = options.hashQueue ?? defaultHashQueueOptions(config.workers);
  const hashQueue = 'run' in queue ? queue : createHashQueue(queue);
  const metrics = await metricsOf(config, hashQueue, () => admission.status() === 'ok');
  const admission = await admissionOf(options, log, metrics);
  const random = options.random ?? randomSource;
  const history = historySink({ clock, log, retentionDays: config.eventRetentionDays });
  const mail = securityMailOf(config, clock, log, history, metrics, options.mailTuning);
  const sinks = [
    history,
    ...(mail === null ? [] : [mail.sink]),
    ...(metrics === null ? [] : [metricsAuditSink(metrics)]),
    ...(options.auditSinks ?? []),
  ];
  const audit = auditOf(config, log, clock, random, {
    sinks,
    ...(options.webhookTuning === undefined ? {} : { tuning: options.webhookTuning }),
  });
  const wiring: Wiring = {
    config,
    clock,
    random,
    log,
    startedAtMs: clock.now(),
    admission,
    audit: audit.sink,
    metrics,
  };
  const loaded = initialPolicy(options);
  const passwords = passwordsOf(wiring, hashQueue);
  const credentialsFile = await prepareUnlessWorker(options, wiring);
  const store = openStore(config.authdb);
  history.attach(store.userEvents);
  mail?.sink.attach(store);
  store.onAvailability((event) => {
    metrics?.databaseAvailability(event.up);
    if (event.up) log.warn('database available again');
    else log.warn('database unavailable', { cause: event.cause });
  });
  try {
    // The primary of a cluster runs the purge; a single process runs its own.
    const cleanup = options.worker === undefined ? startCleanup(store, clock, log, config.purge, metrics) : null;
    const policy = swappablePolicy(loaded.compiled);
    const loginBackoff = config.loginBackoff
      ? storeLoginBackoff(wiring.admission, clock, options.sleep ?? ((ms) => sleepFor(ms)))
      : noLoginBackoff;
    const dispatcher = dispatcherOf(wiring, store, policy, passwords, loginBackoff);
    const { server, url } = await serveHttp(wiring, store, dispatcher, options);
    return {
      url,
      server,
      store,
      log,
      credentialsFile,
      policy,
      webhook: audit.webhook,
      reloadPolicy: () => reloadPolicyFile(policy, config.permissionsPath, log, audit.sink),
      applyPolicy: (bytes) => applyPolicyBytes(policy, bytes, log, config.permissionsPath),
      purgeNow: () => cleanup?.runOnce() ?? Promise.resolve(),
      async close() {
        cleanup?.stop();
        const listenerClosed = options.worker?.listenerClosed;
        await closeGracefully(server, listenerClosed === undefined ? {} : { listenerClosed });
        // After the drain, so the events of the last requests are queued; bounded (flushMs).
        await audit.webhook?.close();
        await mail?.queue.close();
        wiring.admission.close();
        await store.close();
      },
    };
  } catch (error) {
    wiring.admission.close();
    await store.close();
    throw error;
  }
}
