/**
 * Request bodies that change on every request, built in the load generator
 * (autocannon's `setupRequest`). Registration bodies walk through the
 * simulator's generated population (docs/core-protocol.md, "Demo data"), one new
 * customer and one new platform customerId per request.
 */
import { generatedDemographics } from '../../dist/src/adapters/core/simulator/demo-data.js';

export const POPULATION = Object.freeze({ first: 100_000, last: 999_999 });

/** The registration body coregate gets (Form A, as a platform sends it: SSN with dashes). */
export function coregateRegistration(n, tag) {
  const person = generatedDemographics(n);
  return {
    demographics: { socialSecurityNumber: person.socialSecurityNumber, accountNumber: person.accountNumber, birthDay: person.birthDay },
    registration: { customerId: `${tag}-${n}` },
  };
}

/** The start-session body a core gets for the same customer (normalised as coregate sends it). */
export function coreStartSession(n) {
  const person = generatedDemographics(n);
  return {
    demographics: { socialSecurityNumber: person.socialSecurityNumber.replace(/\D/g, ''), accountNumber: person.accountNumber, birthDay: person.birthDay },
  };
}

/**
 * A function returning the next body: `spec` is `{kind: 'coregate-registration' | 'core-start-session', first, tag}`.
 * Numbers go up from `first` and wrap inside the population.
 */
export function requestGenerator(spec) {
  let n = spec.first;
  return () => {
    const current = n;
    n = n >= POPULATION.last ? POPULATION.first : n + 1;
    const body = spec.kind === 'coregate-registration' ? coregateRegistration(current, spec.tag) : coreStartSession(current);
    return JSON.stringify(body);
  };
}
