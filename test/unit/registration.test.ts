import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import fc from 'fast-check';
import { normaliseBirthDay, normaliseSocialSecurityNumber, parseRegistration } from '../../src/domain/registration.js';
import { RegistrationRequestSchema } from '../../src/http/routes/core/sessions.js';

const today = new Date('2026-03-01T12:00:00.000Z');
const formA = {
  demographics: { socialSecurityNumber: '123-45-6789', accountNumber: '70001234', birthDay: '1980-04-12' },
  registration: { customerId: 'cust-1' },
};

function problemsOf(body: unknown) {
  const result = parseRegistration(body, today);
  assert.equal(result.ok, false);
  return result.ok ? [] : result.problems;
}

describe('parseRegistration', () => {
  it('accepts Form A and normalises SSN and birth date', () => {
    const result = parseRegistration(
      { ...formA, demographics: { ...formA.demographics, birthDay: '04/12/1980' } },
      today,
    );
    assert.deepEqual(result, {
      ok: true,
      registration: {
        customerId: 'cust-1',
        subject: {
          kind: 'demographics',
          socialSecurityNumber: '123456789',
          accountNumber: '70001234',
          birthDay: '1980-04-12',
        },
      },
    });
  });

  it('accepts Form B', () => {
    const result = parseRegistration({ customer: { customerKey: 'C-1001' }, registration: { customerId: 'x' } }, today);
    assert.deepEqual(result, {
      ok: true,
      registration: { customerId: 'x', subject: { kind: 'customerKey', customerKey: 'C-1001' } },
    });
  });

  it('requires exactly one of demographics and customer', () => {
    assert.deepEqual(problemsOf({ registration: { customerId: 'x' } }), [
      { path: '/', message: 'exactly one of demographics or customer is required' },
    ]);
    const both = problemsOf({ ...formA, customer: { customerKey: 'C-1' } });
    assert.ok(both.some((p) => p.path === '/' && /exactly one/.test(p.message)));
  });

  it('names every bad field', () => {
    const problems = problemsOf({
      demographics: { socialSecurityNumber: '12-34', accountNumber: '', birthDay: '1980-02-30' },
      registration: {},
      extra: 1,
    });
    const paths = problems.map((p) => p.path).sort();
    assert.deepEqual(paths, [
      '/demographics/accountNumber',
      '/demographics/birthDay',
      '/demographics/socialSecurityNumber',
      '/extra',
      '/registration/customerId',
    ]);
  });

  it('rejects wrong types and non-objects', () => {
    assert.deepEqual(problemsOf(null), [{ path: '/', message: 'must be a JSON object' }]);
    assert.deepEqual(problemsOf([formA]), [{ path: '/', message: 'must be a JSON object' }]);
    const problems = problemsOf({ demographics: 'x', registration: { customerId: 5 } });
    assert.deepEqual(problems.map((p) => p.path).sort(), ['/demographics', '/registration/customerId']);
  });

  it('rejects a birth date today or in the future, and before 1900', () => {
    assert.equal(normaliseBirthDay('2026-03-01', today), undefined);
    assert.equal(normaliseBirthDay('2030-01-01', today), undefined);
    assert.equal(normaliseBirthDay('1899-12-31', today), undefined);
    assert.equal(normaliseBirthDay('2026-02-28', today), '2026-02-28');
    assert.equal(normaliseBirthDay('02/29/2024', today), '2024-02-29');
    assert.equal(normaliseBirthDay('02/29/2023', today), undefined);
    assert.equal(normaliseBirthDay('1980-4-12', today), undefined);
  });

  it('accepts 9-digit SSNs and TINs with dashes anywhere', () => {
    assert.equal(normaliseSocialSecurityNumber('123-45-6789'), '123456789');
    assert.equal(normaliseSocialSecurityNumber('12-3456789'), '123456789');
    assert.equal(normaliseSocialSecurityNumber('123456789'), '123456789');
    assert.equal(normaliseSocialSecurityNumber('12345678'), undefined);
    assert.equal(normaliseSocialSecurityNumber('123 45 6789'), undefined);
    assert.equal(normaliseSocialSecurityNumber('1234567890'), undefined);
  });

  it('never throws and never echoes input in its messages (property)', () => {
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, withObjectString: true }), (body) => {
        const result = parseRegistration(body, today);
        if (!result.ok) {
          assert.ok(result.problems.length > 0);
          for (const problem of result.problems) {
            assert.equal(typeof problem.path, 'string');
            assert.equal(typeof problem.message, 'string');
          }
        }
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(
        fc.string({ minLength: 6 }),
        fc.string({ minLength: 6 }),
        fc.string({ minLength: 6 }),
        (ssn, account, birthDay) => {
          const result = parseRegistration(
            {
              demographics: { socialSecurityNumber: ssn, accountNumber: account, birthDay },
              registration: { customerId: 'c' },
            },
            today,
          );
          if (result.ok) return;
          for (const problem of result.problems) {
            for (const secret of [ssn, account, birthDay]) {
              if (secret.trim().length >= 6)
                assert.ok(!problem.message.includes(secret.trim()) && !problem.path.includes(secret.trim()));
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('accepts only bodies the documented schema admits (property)', () => {
    const documented = TypeCompiler.Compile(RegistrationRequestSchema);
    const padded = (value: fc.Arbitrary<string>) =>
      fc.tuple(fc.constantFrom('', ' ', '\t'), value, fc.constantFrom('', ' ')).map((parts) => parts.join(''));
    const digits = (count: number) =>
      fc.array(fc.constantFrom(...'0123456789'), { minLength: count, maxLength: count }).map((chars) => chars.join(''));
    // Mostly valid values, sometimes anything: the bodies the parser accepts are the interesting ones.
    const orAnything = (valid: fc.Arbitrary<unknown>) =>
      fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) });
    const ssn = orAnything(
      padded(
        fc.oneof(
          digits(9),
          fc.tuple(digits(3), digits(2), digits(4)).map((parts) => parts.join('-')),
        ),
      ),
    );
    const text = (...values: string[]) => orAnything(padded(fc.constantFrom(...values)));
    const registration = fc.record({ customerId: orAnything(fc.constantFrom('cust-1', 'C-1001', 'x')) });
    const extra = fc.option(
      fc.dictionary(fc.constantFrom('extra', 'demographics', 'customer'), fc.jsonValue({ maxDepth: 1 }), {
        maxKeys: 1,
      }),
      { freq: 4, nil: undefined },
    );
    const formA = fc.record({
      demographics: fc.record({
        socialSecurityNumber: ssn,
        accountNumber: text('70001234', 'AB 12-34'),
        birthDay: text('1980-04-12', '04/12/1980'),
      }),
      registration,
    });
    const formB = fc.record({ customer: fc.record({ customerKey: text('C-1001', 'K') }), registration });
    const body = fc.tuple(fc.oneof(formA, formB), extra).map(([form, more]) => (more ? { ...more, ...form } : form));
    let accepted = 0;
    fc.assert(
      fc.property(body, (value) => {
        if (!parseRegistration(value, today).ok) return;
        accepted += 1;
        assert.ok(documented.Check(value), JSON.stringify(value));
      }),
      { numRuns: 3000 },
    );
    assert.ok(accepted > 50, `some generated bodies are valid registrations (${accepted})`);
  });
});
