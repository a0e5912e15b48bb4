/** What the Overview and Institutions pages read besides the operations: the cores' state now, and the rate samples. */
import type { RateSamples } from '../ports/rate-samples.js';

export interface InstitutionState {
  readonly id: string;
  readonly name: string;
  readonly coreKind: string;
  readonly enabled: boolean;
  /** The readiness check of its core (`/readyz`): `ok`, `failed`, or `not checked` while disabled. */
  readonly core: 'ok' | 'failed' | 'not checked';
  /** `closed`, `open`, `half_open`, or `none` without a breaker or before its first call. */
  readonly breaker: string;
}

export interface OverviewSource {
  institutions(): Promise<InstitutionState[]>;
  readonly samples: RateSamples;
}
