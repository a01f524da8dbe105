/**
 * Whether the database answers, as the store's calls find it: operators see an outage and its end
 * once each, with the cause (docs/design.md#logs-and-availability), not as a stream of per-request lines.
 */
import { UnavailableError } from '../../domain/errors.js';

export type AvailabilityEvent = { readonly up: false; readonly cause: string } | { readonly up: true };

export interface Availability {
  /** A store call failed because the database cannot be reached or answer now. */
  failed(error: unknown): void;
  /** A store call succeeded. */
  succeeded(): void;
  /** `listener` hears each change (down, then up again), never a repeat. */
  onChange(listener: (event: AvailabilityEvent) => void): void;
}

/** What went wrong, in one line: the driver's code and message under our UnavailableError. */
export function causeOf(error: unknown): string {
  let inner: unknown = error;
  while (inner instanceof UnavailableError && inner.cause !== undefined) inner = inner.cause;
  if (inner instanceof UnavailableError) return 'no answer within the store call deadline';
  if (!(inner instanceof Error)) return String(inner);
  const code = (inner as Error & { code?: unknown }).code;
  return typeof code === 'string' && !inner.message.includes(code) ? `${code}: ${inner.message}` : inner.message;
}

export function availability(): Availability {
  let up = true;
  const listeners: Array<(event: AvailabilityEvent) => void> = [];
  const emit = (event: AvailabilityEvent): void => {
    for (const listener of listeners) listener(event);
  };
  return {
    failed(error) {
      if (!up) return;
      up = false;
      emit({ up: false, cause: causeOf(error) });
    },
    succeeded() {
      if (up) return;
      up = true;
      emit({ up: true });
    },
    onChange(listener) {
      listeners.push(listener);
    },
  };
}
