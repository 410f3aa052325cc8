import type { Logger } from 'pino';
import type { ServiceClock } from './clock.js';
import type { IdGenerator } from './random/id-generator.js';
import type { SandboxStore } from './store/sandbox-store.js';

/** How orders are processed: after a delay of the service clock, or only when asked to. */
export type ProcessingMode =
  | { readonly kind: 'delay'; readonly ms: number }
  | { readonly kind: 'manual' };

/** Everything the sandbox's domain code needs, passed in rather than reached for. */
export interface SandboxContext {
  readonly store: SandboxStore;
  readonly clock: ServiceClock;
  readonly ids: IdGenerator;
  readonly seed: string;
  readonly processing: ProcessingMode;
  /** Share of money orders (issue, deposit, withdraw) that fail, in `[0, 1]`. */
  readonly failureRate: number;
  readonly logger: Logger;
}
