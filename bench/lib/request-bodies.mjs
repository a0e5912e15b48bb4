/**
 * Request bodies that change on every request, built in the load generator
 * (autocannon's `setupRequest`). Registration bodies walk through the
 * simulator's generated population (docs/core-protocol.md, "Demo data"), one new
 * customer and one new platform customerId per request.
 */
import { generatedDemographics } from '../../dist/src/fakes/core-simulator/demo-data.js';

export const POPULATION = Object.freeze({ first: 100_000, last: 999_999 });

/** A Form A registration body (demographics, as a platform sends them: SSN with dashes). */
export function registrationFormA(n, tag) {
  const person = generatedDemographics(n);
  return {
    demographics: {
      socialSecurityNumber: person.socialSecurityNumber,
      accountNumber: person.accountNumber,
      birthDay: person.birthDay,
    },
    registration: { customerId: `${tag}-${n}` },
  };
}

/** A Form B registration body (the core's customer key), for coregate and the registration floor alike. */
export function registrationFormB(n, tag) {
  return {
    customer: { customerKey: generatedDemographics(n).customerKey },
    registration: { customerId: `${tag}-${n}` },
  };
}

const BODIES = { 'registration-form-a': registrationFormA, 'registration-form-b': registrationFormB };

/**
 * A function returning the next body: `spec` is `{kind: 'registration-form-a' | 'registration-form-b', first, tag}`.
 * Numbers go up from `first` and wrap inside the population.
 */
export function requestGenerator(spec) {
  const body = BODIES[spec.kind];
  if (!body) throw new Error(`unknown request body kind "${spec.kind}"`);
  let n = spec.first;
  return () => {
    const current = n;
    n = n >= POPULATION.last ? POPULATION.first : n + 1;
    return JSON.stringify(body(current, spec.tag));
  };
}
