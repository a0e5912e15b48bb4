/**
 * `GET /v1/savingsaccounts/{savingsId}/transactions/search` as Fineract serves it in 1.9.0,
 * 1.10.1 and develop alike (`SavingsAccountTransactionsApiResource.searchTransactions`,
 * `TransactionSearchRequest`, `SavingsAccountTransactionsSearchServiceImpl.searchTransactions`;
 * docs/cores/fineract.md#stand-in): value dates `fromDate`..`toDate` inclusive, read with
 * `dateFormat` (default `yyyy-MM-dd`); `types` a comma-separated list of
 * `SavingsAccountTransactionType` ids; reversal rows (`is_reversal`) left out, reversed ones
 * kept; `offset` a page number and `limit` a page size (default 50), handed to
 * `PageRequest.of`; sorted by value date, creation and id descending unless `orderBy` says
 * otherwise. The answer is Spring's `PageImpl` as Gson writes it: `content`, `pageable`, `total`.
 * The search does not look the account up: an unknown id is an empty page.
 */
import type { StandInSavings } from './stand-in-data.js';
import { fineractError, Refusal, savingsTransactionTypeId, type Json } from './wire-shapes.js';

const DEFAULT_PAGE_SIZE = 50;
/** The sortable properties the stand-in knows, by the names `SearchUtil.validateToJdbcColumnName` accepts. */
const SORT_KEYS: Readonly<Record<string, 'date' | 'id'>> = {
  transactionDate: 'date',
  transaction_date: 'date',
  createdDate: 'id',
  created_date: 'id',
  id: 'id',
};

type Transaction = StandInSavings['transactions'][number];

/** `DefaultExceptionMapper`: a `RuntimeException` nothing else maps (a query parameter Jersey cannot convert, `PageRequest.of`'s refusal) is a 500. */
function runtimeFailure(message: string): Refusal {
  return new Refusal(500, { Exception: message });
}

/** `DateUtils.parseLocalDate`: a date its pattern does not read is Fineract's validation error. */
function parseDate(text: string | null, pattern: string): number | undefined {
  if (text === null) return undefined;
  const fields: string[] = [];
  const source = pattern.replace(/yyyy|MM|dd|[A-Za-z]+|[^A-Za-z]+/g, (token) => {
    if (token === 'yyyy' || token === 'MM' || token === 'dd') {
      fields.push(token);
      return token === 'yyyy' ? '(\\d{4})' : '(\\d{2})';
    }
    if (/^[A-Za-z]/.test(token)) throw runtimeFailure(`Unknown pattern letter: ${token[0]}`);
    return token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  });
  const match = new RegExp(`^${source}$`).exec(text);
  const part = (name: string) => Number(match?.[fields.indexOf(name) + 1]);
  const [year, month, day] = [part('yyyy'), part('MM'), part('dd')];
  const valid =
    match !== null &&
    fields.length === 3 &&
    new Set(fields).size === 3 &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (!valid)
    throw new Refusal(
      400,
      fineractError(400, 'validation.msg.validation.errors.exist', 'Validation errors exist.', [
        {
          developerMessage: `The parameter date (${text}) format is invalid`,
          defaultUserMessage: `The parameter date (${text}) format is invalid`,
          userMessageGlobalisationCode: 'validation.msg.invalid.date.pattern',
          parameterName: 'date',
          value: text,
          args: [],
        },
      ]),
    );
  return year * 10_000 + month * 100 + day;
}

/** A JAX-RS `Integer` query parameter: Jersey's conversion failure reaches `DefaultExceptionMapper`. */
function integerParameter(query: URLSearchParams, name: string, fallback: number): number {
  const text = query.get(name);
  if (text === null) return fallback;
  if (!/^[+-]?\d{1,10}$/.test(text) || Math.abs(Number(text)) > 2 ** 31 - 1) throw runtimeFailure('HTTP 404 Not Found');
  return Number(text);
}

const dateKey = (transaction: Transaction) =>
  transaction.date[0] * 10_000 + transaction.date[1] * 100 + transaction.date[2];

/**
 * The page `query` asks of `account`'s transactions (`account` undefined: an id no account has),
 * each row written by `row`.
 */
export function searchSavingsTransactions(
  account: StandInSavings | undefined,
  query: URLSearchParams,
  row: (account: StandInSavings, transaction: Transaction) => Json,
): Json {
  const pattern = query.get('dateFormat') ?? 'yyyy-MM-dd';
  const from = parseDate(query.get('fromDate'), pattern);
  const to = parseDate(query.get('toDate'), pattern);
  const page = integerParameter(query, 'offset', 0);
  const size = integerParameter(query, 'limit', DEFAULT_PAGE_SIZE);
  const sortOrder = query.get('sortOrder');
  if (sortOrder !== null && sortOrder !== 'ASC' && sortOrder !== 'DESC') throw runtimeFailure('HTTP 404 Not Found');
  if (page < 0) throw runtimeFailure('Page index must not be less than zero');
  if (size < 1) throw runtimeFailure('Page size must not be less than one');
  const orderBy = query.get('orderBy');
  const properties = orderBy ? orderBy.split(',') : undefined;
  for (const property of properties ?? [])
    if (!(property in SORT_KEYS))
      throw new Refusal(
        400,
        fineractError(400, 'validation.msg.validation.errors.exist', 'Validation errors exist.', [
          {
            developerMessage: `Column ${property} does not exist`,
            defaultUserMessage: `Column ${property} does not exist`,
            userMessageGlobalisationCode: 'error.msg.column.not.exists',
            parameterName: 'orderBy',
            value: property,
            args: [],
          },
        ]),
      );
  // `types` ids that name no valid type leave nothing to match: an empty page.
  const types = query.get('types')?.split(',');
  const matches = (account?.transactions ?? []).filter((transaction) => {
    const key = dateKey(transaction);
    return (
      (from === undefined || key >= from) &&
      (to === undefined || key <= to) &&
      (types === undefined || types.includes(String(savingsTransactionTypeId(transaction.kind))))
    );
  });
  const keys = properties ?? ['transaction_date', 'created_date', 'id'];
  const direction = properties && sortOrder === 'DESC' ? -1 : properties ? 1 : -1;
  matches.sort((a, b) => {
    for (const key of keys) {
      const by = SORT_KEYS[key] === 'date' ? dateKey(a) - dateKey(b) : a.id - b.id;
      if (by !== 0) return direction * by;
    }
    return 0;
  });
  const orderDirection = direction === 1 ? 'ASC' : 'DESC';
  return {
    content: account ? matches.slice(page * size, page * size + size).map((item) => row(account, item)) : [],
    pageable: {
      page,
      size,
      sort: {
        orders: keys.map((property) => ({
          direction: orderDirection,
          property,
          ignoreCase: false,
          nullHandling: 'NATIVE',
        })),
      },
    },
    total: matches.length,
  };
}
