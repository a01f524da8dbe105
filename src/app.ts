/**
 * The composition root: the only place that builds the real ports and wires them together.
 * Tests call startApp with their own clock, randomness, hash queue and log stream.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Writable } from 'node:stream';
import { createDispatcher } from './actions/dispatch.js';
import { memoryReplayCache } from './admission/replay.js';
import { logAuditSink } from './audit/audit.js';
import { startCleanup } from './store/cleanup-timer.js';
import { singleProcessReport } from './http/health-report.js';
import type { WorkersReport } from './http/health-report.js';
import type { Config } from './config/load.js';
import { VERSION } from './config/version.js';
import { systemClock } from './domain/ports.js';
import type { Clock, Random } from './domain/ports.js';
import { randomSource } from './domain/random.js';
import { closeGracefully, createHttpApp, listen } from './http/server.js';
import { createLogger } from './log/logger.js';
import type { Logger } from './log/logger.js';
import { piiHasher } from './log/pii.js';
import { createHashQueue, defaultHashQueueOptions } from './passwords/hash-queue.js';
import type { HashQueue, HashQueueOptions } from './passwords/hash-queue.js';
import { createHasher } from './passwords/hashing.js';
import { createPwnedChecker, noPwnedCheck } from './passwords/pwned.js';
import { passwordService } from './passwords/service.js';
import { applyPolicyBytes, reloadPolicyFile, swappablePolicy } from './policy/reload.js';
import type { ReloadOutcome, SwappablePolicy } from './policy/reload.js';
import { writeCredentials } from './setup/credentials.js';
import { MAINTENANCE_LIMITS } from './store/db.js';
import { openStore } from './store/index.js';
import type { Store } from './store/index.js';
import { seedFixedAccounts } from './store/seed.js';

export interface AppOptions {
  readonly config: Config;
  readonly clock?: Clock;
  readonly random?: Random;
  /** The password-hash queue, or its bounds (default: about the core count per machine). */
  readonly hashQueue?: HashQueueOptions | HashQueue;
  readonly logStream?: Writable;
  /** Set in a cluster worker (src/cluster/worker.ts): the primary prepares the database and knows the workers. */
  readonly worker?: { readonly workers: () => WorkersReport };
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
  /** SIGHUP: re-reads the --permissions file; a valid policy replaces the one in force, an invalid one is refused. */
  reloadPolicy(): ReloadOutcome;
  /** A policy document the cluster primary already checked (the same bytes for every worker). */
  applyPolicy(bytes: Uint8Array): ReloadOutcome;
  close(): Promise<void>;
}

export interface PreparedDatabase {
  /** A store opened for maintenance (no statement timeout), for the caller to keep or close. */
  readonly store: Store;
  /** Set when this start created the superuser and wrote its credentials to a file. */
  readonly credentialsFile: string | null;
}

/**
 * Migrations and the fixed accounts: run once before serving, by the single process or by the cluster
 * primary before it forks (DESIGN decision 21). Safe when instances start together.
 */
export async function prepareDatabase(options: AppOptions & { readonly log: Logger }): Promise<PreparedDatabase> {
  const { config, log } = options;
  const clock = options.clock ?? systemClock;
  const store = openStore(config.authdb, MAINTENANCE_LIMITS);
  try {
    await store.migrate({
      onRetry: (error, attempt) => {
        log.info('waiting for another instance to migrate', { attempt, error: error.message });
      },
    });
    const seeded = await seedFixedAccounts(
      store.users,
      { clock, random: options.random ?? randomSource, hasher: createHasher(config.passHash) },
      config.admin,
    );
    const credentialsFile =
      seeded.created === null ? null : writeCredentials(config.basedir, seeded.created, clock.now());
    if (seeded.created !== null) {
      const pii = piiHasher(config.piisalt);
      log.info('created the superuser account', { user: pii(seeded.created.email), credentials_file: credentialsFile });
    }
    return { store, credentialsFile };
  } catch (error) {
    await store.close();
    throw error;
  }
}

export async function startApp(options: AppOptions): Promise<RunningApp> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const random = options.random ?? randomSource;
  const log = createLogger(options.logStream ?? process.stdout);
  const pii = piiHasher(config.piisalt);
  const startedAtMs = clock.now();

  const queue = options.hashQueue ?? defaultHashQueueOptions(config.workers);
  const hasher = createHasher(config.passHash, 'run' in queue ? queue : createHashQueue(queue));
  const passwords = passwordService(hasher, config.passPolicy, {
    serverName: config.serverName,
    pwned: config.pwnedUrl === null ? noPwnedCheck : createPwnedChecker({ url: config.pwnedUrl, clock }),
    pwnedFailClosed: config.pwnedFailClosed,
  });

  // A cluster worker finds the database prepared by its primary, which also runs the purge.
  let credentialsFile: string | null = null;
  if (options.worker === undefined) {
    const prepared = await prepareDatabase({ ...options, log });
    credentialsFile = prepared.credentialsFile;
    await prepared.store.close();
  }
  const store = openStore(config.authdb);
  try {
    const cleanup = options.worker === undefined ? startCleanup(store, clock, log) : null;
    const policy = swappablePolicy(config.policy.compiled);
    const dispatcher = createDispatcher({
      clock,
      random,
      store,
      audit: logAuditSink(log, pii),
      passwords,
      policy,
      settings: {
        sessionExpiryDays: config.sessionExpiryDays,
        userLockTries: config.userLockTries,
        userLockTimeSeconds: config.userLockTimeSeconds,
        refreshGraceSeconds: config.refreshGraceSeconds,
      },
    });
    const app = createHttpApp({
      keyring: config.keyring,
      debugmode: config.debugmode,
      allowedHosts: new Set(config.allowedHosts),
      maxBodySize: config.maxBodySize,
      messageTtlSeconds: config.messageTtlSeconds,
      clock,
      random,
      dispatcher,
      replay: memoryReplayCache(),
      log,
      pii,
      health: {
        version: VERSION,
        startedAtMs,
        now: () => clock.now(),
        database: (budgetMs) => store.ping(budgetMs),
        workers: options.worker?.workers ?? (() => singleProcessReport(process.pid)),
      },
    });
    const server = await listen(app, { host: config.listen, port: config.port, tls: config.tls });
    const { address, port } = server.address() as AddressInfo;
    const scheme = config.tls === null ? 'http' : 'https';
    const url = `${scheme}://${address.includes(':') ? `[${address}]` : address}:${port}/`;
    return {
      url,
      server,
      store,
      log,
      credentialsFile,
      policy,
      reloadPolicy: () => reloadPolicyFile(policy, config.permissionsPath, log),
      applyPolicy: (bytes) => applyPolicyBytes(policy, bytes, log, config.permissionsPath),
      async close() {
        cleanup?.stop();
        await closeGracefully(server);
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
