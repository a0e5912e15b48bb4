/**
 * Properties of `POST /core/sessions` under arbitrary input: whatever JSON value
 * or raw text arrives, the answer is a 4xx error envelope (never a 5xx, never
 * another shape) and nothing is stored. These are about parsing, so they run on
 * PGlite only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { pgliteBackend } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { assertError, associationCount, formA, postSession } from './gateway-requests.js';
import type { LightMyRequestResponse } from 'fastify';

const RUNS = 150;

/**
 * Registration-shaped values with arbitrary leaves: they reach deeper into the
 * validation than random JSON does. The constants never make a registration the
 * core accepts (no demo customer's account number, an unknown customer key), so
 * every answer must be a refusal.
 */
function nearlyValid(): fc.Arbitrary<unknown> {
  const leaf = fc.oneof(
    fc.jsonValue({ maxDepth: 1 }),
    fc.string(),
    fc.constantFrom('123-45-6789', '123456789', '70001235', '1980-04-12', '04/12/1980', 'C-0000', '', ' '),
  );
  const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
  const demographics = fc.record(
    { socialSecurityNumber: maybe(leaf), accountNumber: maybe(leaf), birthDay: maybe(leaf) },
    { requiredKeys: [] },
  );
  const shaped = fc.record(
    {
      demographics: fc.oneof(demographics, leaf),
      customer: fc.oneof(fc.record({ customerKey: maybe(leaf) }, { requiredKeys: [] }), leaf),
      registration: fc.oneof(fc.record({ customerId: maybe(leaf) }, { requiredKeys: [] }), leaf),
    },
    { requiredKeys: [] },
  );
  const extra = fc.dictionary(fc.string({ maxLength: 12 }), leaf, { maxKeys: 2 });
  return fc
    .tuple(shaped, fc.option(extra, { nil: undefined }))
    .map(([value, more]) => (more ? { ...more, ...value } : value));
}

const REFUSALS: Record<string, { status: number; name: string; className: string }> = {
  BadRequest: { status: 400, name: 'BadRequest', className: 'bad-request' },
  NotAuthenticated: { status: 401, name: 'NotAuthenticated', className: 'not-authenticated' },
  PayloadTooLarge: { status: 413, name: 'PayloadTooLarge', className: 'payload-too-large' },
};

/** A 4xx error envelope: 400 for what is malformed, 401 for a well-formed registration of someone the core does not know. */
function assertRefused(response: LightMyRequestResponse, why: string): void {
  assert.ok(
    response.statusCode >= 400 && response.statusCode < 500,
    `${response.statusCode} ${response.body} for ${why}`,
  );
  const name = String(response.json<{ name?: unknown }>().name);
  const kind = REFUSALS[name] ?? assert.fail(`unexpected ${name} (${response.statusCode}) for ${why}`);
  assertError(response, kind, why);
}

describe('POST /core/sessions under arbitrary input (pglite)', () => {
  let h: Harness;
  let token: string;
  before(async () => {
    h = await createHarness(pgliteBackend);
    token = await h.token(await h.client());
  });
  after(() => h?.close());

  async function nothingStored(send: () => Promise<LightMyRequestResponse>, why: string) {
    const rows = await associationCount(h);
    const response = await send();
    assertRefused(response, why);
    assert.equal(await associationCount(h), rows, `nothing stored for ${why}`);
  }

  it('answers any JSON value with a 4xx envelope and stores nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.jsonValue(), nearlyValid()), async (value) => {
        const text = JSON.stringify(value) ?? 'null';
        await nothingStored(() => postSession(h, { token }, text), text.slice(0, 500));
      }),
      { numRuns: RUNS },
    );
  });

  it('answers any raw text sent as application/json with a 4xx envelope and stores nothing', async () => {
    const valid = JSON.stringify(formA('fuzz'));
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.string({
        unit: fc.constantFrom(
          '{',
          '}',
          '[',
          ']',
          '"',
          ':',
          ',',
          '\\',
          'u',
          '0',
          ' ',
          'a',
          '__proto__',
          'constructor',
          'null',
        ),
      }),
      // A valid body cut short or with something appended.
      fc.nat({ max: valid.length - 1 }).map((length) => valid.slice(0, length)),
      fc
        .string()
        .map((tail) => `${valid}${tail}`)
        .filter((raw) => raw !== valid && !/^\s*$/.test(raw.slice(valid.length))),
    );
    const contentType = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'Application/JSON');
    await fc.assert(
      fc.asyncProperty(text, contentType, async (raw, type) => {
        await nothingStored(
          () => postSession(h, { token, contentType: type }, raw),
          `${type} ${JSON.stringify(raw).slice(0, 500)}`,
        );
      }),
      { numRuns: RUNS },
    );
  });

  it('refuses prototype-poisoning keys like any unknown field', async () => {
    const bodies = [
      '{"__proto__": {"registration": {"customerId": "x"}}, "customer": {"customerKey": "C-1001"}}',
      '{"constructor": {"prototype": {"customerId": "x"}}, "customer": {"customerKey": "C-1001"}, "registration": {"customerId": "p"}}',
      '{"customer": {"customerKey": "C-1001", "__proto__": {"x": 1}}, "registration": {"customerId": "p2"}}',
    ];
    for (const raw of bodies) await nothingStored(() => postSession(h, { token }, raw), raw);
  });
});
