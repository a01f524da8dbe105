/** GET|HEAD /health: the report as JSON, 503 when the database is down. Reads nothing from the request. */
import { healthReport } from '../health.js';
import type { HealthSources } from '../health.js';
import type { Step } from '../state.js';

export function health(sources: HealthSources): Step {
  return async function health(ctx) {
    const { httpStatus, report } = await healthReport(sources);
    ctx.status = httpStatus;
    ctx.body = report;
  };
}
