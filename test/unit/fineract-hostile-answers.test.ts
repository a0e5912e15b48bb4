/**
 * Fineract answers that break the rules (docs/cores/fineract.md#hostile-answers): another
 * client's account, ids beyond a double's precision, a key given twice, text fields with
 * control characters or of unbounded length. Each ends in a named refusal, never a value.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ForeignAccount,
  loanRecord,
  readClientAccounts,
  readTermDeposit,
  savingsRecord,
  type ListedAccount,
  type MappingContext,
} from '../../src/adapters/core/fineract/account-mapping.js';
import { idField, MalformedAnswer, parseAnswer } from '../../src/adapters/core/fineract/answer-reader.js';

const context: MappingContext = { clientId: '42', customerKey: '42', tenant: 'default', now: new Date('2026-03-01Z') };
const listed: ListedAccount = { id: '7', accountNo: '7', shortProductName: 'S', active: true, depositType: 100 };
const savings = (fields: Record<string, unknown>) => ({
  clientId: 42,
  nominalAnnualInterestRate: 1,
  timeline: { submittedOnDate: [2024, 1, 1] },
  summary: { accountBalance: 1 },
  ...fields,
});
const loan = (fields: Record<string, unknown>) => ({
  clientId: 42,
  annualInterestRate: 1,
  principal: 1,
  timeline: { submittedOnDate: [2024, 1, 1] },
  summary: { totalOutstanding: 1 },
  ...fields,
});

function refused(read: () => unknown, kind: typeof MalformedAnswer | typeof ForeignAccount, message: RegExp): void {
  assert.throws(read, (error: unknown) => {
    assert.ok(error instanceof kind, String(error));
    assert.match(error.message, message);
    return true;
  });
}

describe('Fineract answers that break the rules', () => {
  it('refuses a savings, deposit or loan answer that names another client, or none', () => {
    for (const clientId of [43, undefined, null])
      refused(() => savingsRecord(listed, savings({ clientId }), undefined, context), ForeignAccount, /^clientId/);
    for (const clientId of ['42', 4.2])
      refused(() => savingsRecord(listed, savings({ clientId }), undefined, context), MalformedAnswer, /^clientId/);
    refused(
      () => loanRecord(listed, loan({ clientId: 1 }), context),
      ForeignAccount,
      /^clientId: names another client$/,
    );
    refused(() => readTermDeposit({ clientId: 1 }, context), ForeignAccount, /^clientId/);
    assert.equal(savingsRecord(listed, savings({}), undefined, context).customerKey, '42');
  });

  it('keeps ids of up to 18 digits as their digits, beyond a double’s precision', () => {
    const answer = parseAnswer(
      '{"savingsAccounts":[{"id":9007199254740993,"accountNo":"1","status":{"active":true},"depositType":{"id":100}}]}',
    );
    assert.equal(readClientAccounts(answer).savings[0]!.id, '9007199254740993');
    const client = parseAnswer('{"clientId":9007199254740993}') as Record<string, unknown>;
    assert.equal(idField(client, 'clientId', ''), '9007199254740993');
    const near = { ...context, clientId: '9007199254740992' };
    refused(
      () => savingsRecord(listed, { ...savings({}), clientId: client.clientId }, undefined, near),
      ForeignAccount,
      /clientId/,
    );
    for (const text of ['{"id":1234567890123456789}', '{"id":0}', '{"id":-5}', '{"id":1.5}', '{"id":"12"}'])
      refused(
        () => idField(parseAnswer(text) as Record<string, unknown>, 'id', ''),
        MalformedAnswer,
        /^id: expected a positive integer of at most 18 digits$/,
      );
  });

  it('refuses a key given twice, with different values or the same, naming neither key nor value', () => {
    refused(
      () => parseAnswer('{"clientId":42,"summary":{"accountBalance":1},"clientId":43}'),
      MalformedAnswer,
      /^\(answer\): an object names the same key twice$/,
    );
    refused(() => parseAnswer('{"a":[{"x":1,"x":"1"}]}'), MalformedAnswer, /same key twice/);
    refused(() => parseAnswer('{"a":1'), MalformedAnswer, /^\(answer\): not JSON$/);
    refused(() => parseAnswer('{"a":1,"a":1}'), MalformedAnswer, /^\(answer\): an object names the same key twice$/);
    assert.deepEqual(parseAnswer('{"a":1,"b":{"a":1}}'), { a: 1, b: { a: 1 } });
  });

  it('refuses text fields with control characters or over 256 characters, naming the field', () => {
    const list = (account: Record<string, unknown>) => () =>
      readClientAccounts({
        loanAccounts: [{ id: 1, accountNo: '1', status: { active: true }, ...account }],
      });
    refused(
      list({ accountNo: '12\n34' }),
      MalformedAnswer,
      /^loanAccounts\[0\]\.accountNo: holds a control character$/,
    );
    refused(
      list({ accountNo: 'x'.repeat(257) }),
      MalformedAnswer,
      /^loanAccounts\[0\]\.accountNo: expected at most 256 characters$/,
    );
    refused(
      list({ shortProductName: 'P'.repeat(100_000) }),
      MalformedAnswer,
      /^loanAccounts\[0\]\.shortProductName: expected at most 256/,
    );
    refused(list({ shortProductName: 'A\u0085B' }), MalformedAnswer, /shortProductName: holds a control character/);
    refused(
      () => savingsRecord(listed, savings({ externalId: 'e\u0000' }), undefined, context),
      MalformedAnswer,
      /^externalId: holds a control character$/,
    );
    assert.equal(list({ accountNo: 'ü'.repeat(256) })().loans[0]!.accountNo.length, 256);
  });
});
