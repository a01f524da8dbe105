/** GET /health (docs/design.md#health-and-echo): not encrypted, not rate-limited; 503 when the database is down. */
import type { WorkersReport } from './health-report.js';
import type { Step } from './state.js';

export interface HealthSources {
  readonly version: string;
  readonly startedAtMs: number;
  now(): number;
  /** Resolves true when the database answers correctly within the budget. */
  database(budgetMs: number): Promise<boolean>;
  workers(): WorkersReport;
  /** The shared admission store: "unused" without `redisurl`, "down" while this instance falls back. */
  redis(): 'ok' | 'down' | 'unused';
}

export interface HealthReport {
  readonly status: 'ok' | 'degraded' | 'down';
  readonly version: string;
  readonly database: 'ok' | 'down';
  readonly workers: WorkersReport;
  readonly redis: 'ok' | 'down' | 'unused';
  readonly uptime_s: number;
}

const DATABASE_BUDGET_MS = 1000;

export async function healthReport(sources: HealthSources): Promise<{ httpStatus: number; report: HealthReport }> {
  const databaseOk = await sources.database(DATABASE_BUDGET_MS);
  const workers = sources.workers();
  const status = !databaseOk ? 'down' : workers.alive < workers.expected ? 'degraded' : 'ok';
  return {
    httpStatus: databaseOk ? 200 : 503,
    report: {
      status,
      version: sources.version,
      database: databaseOk ? 'ok' : 'down',
      workers,
      redis: sources.redis(),
      uptime_s: Math.floor((sources.now() - sources.startedAtMs) / 1000),
    },
  };
}

/** GET|HEAD /health: the report as JSON, 503 when the database is down. Reads nothing from the request. */
export function health(sources: HealthSources): Step {
  return async function health(ctx) {
    const { httpStatus, report } = await healthReport(sources);
    ctx.status = httpStatus;
    ctx.body = report;
  };
}
