/**
 * The token-signing series (each signature of an access token or a readiness check):
 * - `coregate_token_signatures_total{store,alg,outcome}` — signatures by key store
 *   (`file`, `pkcs11`), algorithm and outcome (`ok`, `error`);
 * - `coregate_token_signature_duration_seconds{store,alg}` — how long each took (an HSM
 *   round trip shows here first).
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import type { SigningMetrics } from '../../ports/signing-key-custody.js';

const SIGNATURE_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5];

export function registerSigningMetrics(registry: Registry): SigningMetrics {
  const signatures = new Counter({
    name: 'coregate_token_signatures_total',
    help: 'Token signatures by key store (file, pkcs11), algorithm and outcome (ok, error)',
    labelNames: ['store', 'alg', 'outcome'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'coregate_token_signature_duration_seconds',
    help: 'Time to sign one token, by key store and algorithm',
    labelNames: ['store', 'alg'] as const,
    buckets: SIGNATURE_BUCKETS,
    registers: [registry],
  });
  return {
    signed(store, alg, outcome, seconds) {
      signatures.inc({ store, alg, outcome });
      duration.observe({ store, alg }, seconds);
    },
  };
}
