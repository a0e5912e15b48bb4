/**
 * DPoP proofs (RFC 9449) as the token endpoint and the gateway check them: a valid proof
 * (`DpopProofVerifier`) whose `jti` has not been seen before within the proof's window, in
 * any process (the same single-use store as client assertions).
 */
import { createHash } from 'node:crypto';
import {
  InvalidProof,
  type DpopProofExpectation,
  type DpopProofVerifier,
  type VerifiedDpopProof,
} from '../ports/client-proofs.js';
import type { DatabaseDeadline } from '../ports/database-deadline.js';
import type { ReplayGuard } from '../ports/replay-guard.js';
import { firstUseOrUnavailable } from './single-use-check.js';

/**
 * The key under which a DPoP proof's `jti` is remembered: per key (`jkt`, RFC 9449 §11.1), of
 * fixed length whatever the client sent. The same form as a client assertion's key in
 * `app/authenticate-client.ts`, under its own prefix, so the two never collide.
 */
function dpopReplayKey(jkt: string, jti: string): string {
  return `dpop:${createHash('sha256').update(`${jkt}\u0000${jti}`).digest('base64url')}`;
}

/** A proof is remembered as long as its `iat` could still be accepted, and a little more. */
const REMEMBER_SECONDS = 2 * 60 + 5;

export class DpopProofs {
  constructor(
    private readonly verifier: DpopProofVerifier,
    private readonly replays: ReplayGuard,
  ) {}

  /** Signing algorithms accepted, for the metadata (`dpop_signing_alg_values_supported`). */
  get algorithms(): readonly string[] {
    return this.verifier.algorithms;
  }

  /** The verified proof; throws {@link InvalidProof} for a bad or replayed one. `deadline`: the request's time for the database (`ports/database-deadline.ts`). */
  async check(proof: string, expected: DpopProofExpectation, deadline?: DatabaseDeadline): Promise<VerifiedDpopProof> {
    const verified = await this.verifier.verify(proof, expected);
    const until = new Date((verified.iat + REMEMBER_SECONDS) * 1000);
    if (
      !(await firstUseOrUnavailable(
        this.replays,
        dpopReplayKey(verified.jkt, verified.jti),
        until,
        expected.now,
        deadline,
      ))
    )
      throw new InvalidProof('jti replayed');
    return verified;
  }
}
