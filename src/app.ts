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
import type { Config } from './config/load.js';
import { VERSION } from './config/version.js';
import { createHashQueue, defaultHashQueueOptions } from './passwords/hash-queue.js';
import type { HashQueueOptions } from './passwords/hash-queue.js';
import { createHasher } from './passwords/hashing.js';
import { createPwnedChecker, noPwnedCheck } from './passwords/pwned.js';
import { passwordService } from './passwords/service.js';
import { systemClock } from './domain/ports.js';
import type { Clock, Random } from './domain/ports.js';
import { randomSource } from './domain/random.js';
import { createHttpApp, listen } from './http/server.js';
import { createLogger } from './log/logger.js';
import type { Logger } from './log/logger.js';
import { piiHasher } from './log/pii.js';
import { applyPolicyBytes, reloadPolicyFile, swappablePolicy } from './policy/reload.js';
import type { ReloadOutcome, SwappablePolicy } from './policy/reload.js';
import { openStore } from './store/index.js';
import type { Store } from './store/index.js';
import { seedFixedAccounts } from './store/seed.js';
import { writeCredentials } from './setup/credentials.js';

export interface AppOptions {
  readonly config: Config;
  readonly clock?: Clock;
  readonly random?: Random;
  /** Bounds of the password-hash queue (default: about the core count per machine). */
  readonly hashQueue?: HashQueueOptions;
  readonly logStream?: Writable;
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

export async function startApp(options: AppOptions): Promise<RunningApp> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const random = options.random ?? randomSource;
  const log = createLogger(options.logStream ?? process.stdout);
  const pii = piiHasher(config.piisalt);
  const startedAtMs = clock.now();

  const hasher = createHasher(
    config.passHash,
    createHashQueue(options.hashQueue ?? defaultHashQueueOptions(config.workers)),
  );
  const passwords = passwordService(hasher, config.passPolicy, {
    serverName: config.serverName,
    pwned: config.pwnedUrl === null ? noPwnedCheck : createPwnedChecker({ url: config.pwnedUrl, clock }),
    pwnedFailClosed: config.pwnedFailClosed,
  });

  const store = openStore(config.authdb);
  try {
    await store.migrate();
    const seeded = await seedFixedAccounts(store.users, { clock, random, hasher }, config.admin);
    const credentialsFile =
      seeded.created === null ? null : writeCredentials(config.basedir, seeded.created, clock.now());
    if (seeded.created !== null) {
      log.info('created the superuser account', { user: pii(seeded.created.email), credentials_file: credentialsFile });
    }

    const policy = swappablePolicy(config.policy.compiled);
    const dispatcher = createDispatcher({
      clock,
      random,
      store,
      audit: logAuditSink(log, pii),
      passwords,
      policy,
      settings: { sessionExpiryDays: config.sessionExpiryDays },
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
        workers: () => ({ expected: 1, alive: 1 }),
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
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
