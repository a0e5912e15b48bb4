/** Recent request and error rates, sampled in this process, for the operator console's charts. */

/** One quantity over the last minutes: a count per step, oldest first. */
export interface RateSeries {
  /** What is counted: `HTTP requests`, or `core calls (bank-b)`. */
  readonly label: string;
  readonly requests: readonly number[];
  /** The failures among them (5xx answers; core calls that failed or went unanswered). */
  readonly errors: readonly number[];
}

export interface RateSamples {
  /** Seconds between two samples. */
  readonly stepSeconds: number;
  /** How many steps a series holds at most. */
  readonly capacity: number;
  /** The HTTP series first, then one per institution the core was called for. */
  series(): RateSeries[];
  /** The breaker state of each institution's core (`closed`, `open`, `half_open`), as last reported. */
  circuitStates(): Promise<ReadonlyMap<string, string>>;
}
