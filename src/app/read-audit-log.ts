/** `coregate audit list`: the operator's view of the audit log, newest first. */
import { invalidRequest, type FieldProblem } from '../domain/errors.js';
import { AUDIT_EVENT_TYPES, type AuditEventType, type AuditLog, type AuditRecord } from '../ports/audit-log.js';
import { isCalendarDate } from '../domain/calendar-date.js';

export const DEFAULT_AUDIT_LIMIT = 100;
export const MAX_AUDIT_LIMIT = 10_000;

export interface AuditListInput {
  readonly platform?: string | undefined;
  readonly customerId?: string | undefined;
  /** ISO-8601: a date (`2026-03-01`, midnight UTC) or a date-time with `Z` or an offset. */
  readonly since?: string | undefined;
  /** Like `since`: events before this instant. */
  readonly until?: string | undefined;
  /** One of {@link AUDIT_EVENT_TYPES}. */
  readonly type?: string | undefined;
  readonly limit?: number | undefined;
  /** Only events by this actor: `client`, `operator` (the CLI) or `operator:NAME` (the console). */
  readonly actor?: string | undefined;
  /** The next page: events listed after the event with this id. */
  readonly before?: string | undefined;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * An ISO-8601 instant; `undefined` unless it is one. A date-time must name its zone:
 * an audit query in the reader's local time would silently miss events.
 */
export function parseInstant(text: string): Date | undefined {
  const trimmed = text.trim();
  const dateOnly = ISO_DATE.test(trimmed);
  if (!dateOnly && !ISO_DATE_TIME.test(trimmed)) return undefined;
  // `Date` would roll 2026-02-30 over to March: the date must be on the calendar.
  const [year, month, day] = trimmed.slice(0, 10).split('-').map(Number) as [number, number, number];
  if (!isCalendarDate(year, month, day)) return undefined;
  const date = new Date(dateOnly ? `${trimmed}T00:00:00Z` : trimmed);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

export class AuditReader {
  constructor(private readonly log: AuditLog) {}

  async list(input: AuditListInput): Promise<AuditRecord[]> {
    const problems: FieldProblem[] = [];
    const since = input.since === undefined ? undefined : parseInstant(input.since);
    if (input.since !== undefined && since === undefined) {
      problems.push({
        path: 'since',
        message: 'must be an ISO-8601 date (2026-03-01) or date-time with a zone (2026-03-01T12:00:00Z)',
      });
    }
    const until = input.until === undefined ? undefined : parseInstant(input.until);
    if (input.until !== undefined && until === undefined) {
      problems.push({
        path: 'until',
        message: 'must be an ISO-8601 date (2026-03-01) or date-time with a zone (2026-03-01T12:00:00Z)',
      });
    }
    if (input.type !== undefined && !(AUDIT_EVENT_TYPES as readonly string[]).includes(input.type)) {
      problems.push({ path: 'type', message: `must be one of ${AUDIT_EVENT_TYPES.join(', ')}` });
    }
    const limit = input.limit ?? DEFAULT_AUDIT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_AUDIT_LIMIT) {
      problems.push({ path: 'limit', message: `must be a whole number from 1 to ${MAX_AUDIT_LIMIT}` });
    }
    if (input.platform === '') problems.push({ path: 'platform', message: 'must not be empty' });
    if (input.customerId === '') problems.push({ path: 'customer', message: 'must not be empty' });
    if (input.actor !== undefined && !/^(client|operator|operator:[A-Za-z0-9][A-Za-z0-9._@-]{0,63})$/.test(input.actor))
      problems.push({ path: 'actor', message: 'must be client, operator or operator:NAME' });
    if (input.before !== undefined && !/^[1-9]\d{0,17}$/.test(input.before))
      problems.push({ path: 'before', message: 'must be an event id, as audit list shows it' });
    if (problems.length > 0) throw invalidRequest('invalid audit query', { problems });
    return this.log.list({
      platform: input.platform,
      customerId: input.customerId,
      since,
      ...(until !== undefined ? { until } : {}),
      ...(input.type !== undefined ? { type: input.type as AuditEventType } : {}),
      ...(input.actor !== undefined ? { actor: input.actor } : {}),
      ...(input.before !== undefined ? { before: input.before } : {}),
      limit,
    });
  }
}
