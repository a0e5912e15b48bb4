/**
 * The account record (docs/behaviour.md#accounts), once: the gateway's response schema
 * (`http/routes/core/accounts.ts`), the check of a core's answers and of the
 * simulator's fixture files (`adapters/core/account-record.ts`) and the
 * `AccountRecord` type all come from {@link AccountRecordSchema}.
 *
 * The domain may import `@sinclair/typebox`: it is a pure schema library (JSON
 * Schema values and their static types), no framework and no I/O, so the domain
 * still knows nothing of fastify, pg or undici.
 */
import { Type, type Static } from '@sinclair/typebox';

/** The minimum date-time, meaning "no date" in account records. */
export const NO_DATE = '0001-01-01T00:00:00';

/** Pattern of a single-letter code (account type, `Y`/`N` flags, authorization code). */
export const LETTER_PATTERN = '^[A-Za-z]$';
/** Pattern of a date-time without zone; whether it is a real calendar date is checked beside it. */
export const LOCAL_DATE_TIME_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$';

/** `YYYY-MM-DDTHH:mm:ss`, no zone; `0001-01-01T00:00:00` means no date. */
const LocalDateTime = (description?: string) =>
  Type.String({
    pattern: LOCAL_DATE_TIME_PATTERN,
    examples: ['2019-05-01T00:00:00'],
    ...(description ? { description } : {}),
  });
const Letter = (description: string, example: string) =>
  Type.String({ pattern: LETTER_PATTERN, description, examples: [example] });
const YesNo = () => Letter('`Y` or `N`', 'Y');

/**
 * An account as the core reports it
 * (docs/core-protocol.md#3-get-v1accounts--list-the-sessions-accounts); every field is
 * required, in the order of that page's table. `additionalProperties: false`: as a response
 * schema it is an allow-list, so nothing beyond these fields can reach a platform.
 */
export const AccountRecordSchema = Type.Object(
  {
    id: Type.String(),
    customerKey: Type.String(),
    guid: Type.String(),
    nickname: Type.String(),
    accountReferenceId: Type.String(),
    type: Letter('single-letter account type code', 'D'),
    currentBalance: Type.Number(),
    availableBalance: Type.Number(),
    interestRate: Type.Number({ description: 'a fraction: 0.0425 is 4.25 %' }),
    accruedInterest: Type.Number(),
    yearToDateInterest: Type.Number(),
    paidYearToDateInterest: Type.Number(),
    pastDueAmount: Type.Number(),
    creditLimit: Type.Number(),
    availableCredit: Type.Number(),
    originationDate: LocalDateTime(),
    nextPaymentDate: LocalDateTime('`0001-01-01T00:00:00` stands for no date'),
    maturityDate: LocalDateTime('`0001-01-01T00:00:00` stands for no date'),
    productCode: Type.String(),
    isDefault: Type.Boolean(),
    hasCard: Type.Boolean(),
    receiveEmailNotices: YesNo(),
    receiveEmailStatements: YesNo(),
    receivePaperNotices: YesNo(),
    receivePaperStatements: YesNo(),
    authorizationCode: Letter('single-letter code', 'A'),
    originalBalance: Type.Number(),
  },
  { $id: 'AccountRecord', additionalProperties: false },
);

/** An account as the core reports it (docs/behaviour.md#accounts). */
export type AccountRecord = Readonly<Static<typeof AccountRecordSchema>>;
