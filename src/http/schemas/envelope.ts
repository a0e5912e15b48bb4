/**
 * The response envelope of `/core/*` (spec §2.2, CONTRACT §3) and the account
 * record (spec §2.3). Response schemas are allow-lists: fast-json-stringify
 * writes exactly these fields, so nothing else can leak to the platform.
 */
import { Type, type TSchema } from '@sinclair/typebox';

export function SuccessEnvelope<T extends TSchema>(data: T, id: string) {
  return Type.Object(
    {
      name: Type.Literal('Success'),
      className: Type.Literal('Success'),
      message: Type.Literal('Success'),
      data,
      code: Type.Literal(200),
    },
    { $id: id, additionalProperties: false },
  );
}

export function success<T>(data: T) {
  return { name: 'Success', className: 'Success', message: 'Success', data, code: 200 } as const;
}

export const ErrorEnvelope = Type.Object(
  {
    name: Type.String({ examples: ['BadRequest'] }),
    className: Type.String({ examples: ['bad-request'] }),
    message: Type.String(),
    code: Type.Integer(),
    data: Type.Object(
      {
        errors: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
        reason: Type.Optional(Type.String()),
      },
      { additionalProperties: true },
    ),
  },
  { $id: 'ErrorEnvelope', description: 'FeathersJS-style error envelope' },
);

/** `YYYY-MM-DDTHH:mm:ss`, no zone; `0001-01-01T00:00:00` means no date. */
const LocalDateTime = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$', examples: ['2019-05-01T00:00:00'] });
const YesNo = Type.String({ minLength: 1, maxLength: 1, examples: ['Y'] });

export const AccountRecordSchema = Type.Object(
  {
    id: Type.String(),
    customerKey: Type.String(),
    guid: Type.String(),
    nickname: Type.String(),
    accountReferenceId: Type.String(),
    type: Type.String({ description: 'single-letter account type code' }),
    currentBalance: Type.Number(),
    availableBalance: Type.Number(),
    interestRate: Type.Number({ description: 'a fraction: 0.0425 is 4.25 %' }),
    accruedInterest: Type.Number(),
    yearToDateInterest: Type.Number(),
    paidYearToDateInterest: Type.Number(),
    pastDueAmount: Type.Number(),
    creditLimit: Type.Number(),
    availableCredit: Type.Number(),
    originationDate: LocalDateTime,
    nextPaymentDate: LocalDateTime,
    maturityDate: LocalDateTime,
    productCode: Type.String(),
    isDefault: Type.Boolean(),
    hasCard: Type.Boolean(),
    receiveEmailNotices: YesNo,
    receiveEmailStatements: YesNo,
    receivePaperNotices: YesNo,
    receivePaperStatements: YesNo,
    authorizationCode: Type.String({ description: 'single-letter code' }),
    originalBalance: Type.Number(),
  },
  { $id: 'AccountRecord', additionalProperties: false },
);

/** Error statuses every gateway route can answer. */
export function gatewayErrors(...statuses: number[]) {
  return Object.fromEntries(statuses.map((status) => [status, ErrorEnvelope]));
}
