/**
 * The stand-in's two client searches, as each release answers them
 * (docs/cores/fineract.md#stand-in): `POST /v2/clients/search` (`SearchingClientRepositoryImpl`)
 * and `GET /v1/search` (`SearchReadPlatformServiceImpl`).
 */
import { isPlainObject } from '../../domain/json.js';
import type { ReleaseBehaviour } from './releases.js';
import type { StandInClient } from './stand-in-data.js';
import { displayName, fineractError, pad, Refusal, withOptional, type Json } from './wire-shapes.js';

/** `GET /v1/search` stops at 50 rows (`sqlGenerator.limit(50, 0)`). */
const V1_SEARCH_ROWS = 50;

function clientStatus(client: StandInClient): Json {
  return client.active
    ? { id: 300, code: 'clientStatusType.active', value: 'Active' }
    : { id: 600, code: 'clientStatusType.closed', value: 'Closed' };
}

/**
 * `POST /v2/clients/search`: a substring match (`like %text%`) on the client's account
 * number, display name, external id and mobile number, and — where the release has
 * FINERACT-2073 — its identifiers' document keys; newest client first; a Spring Data page.
 */
export function clientSearchV2(clients: Iterable<StandInClient>, body: string, behaviour: ReleaseBehaviour): Json {
  let request: unknown;
  try {
    request = JSON.parse(body);
  } catch {
    throw new Refusal(400, fineractError(400, 'error.msg.invalid.request.body', 'The request body is not JSON.'));
  }
  const text =
    isPlainObject(request) && isPlainObject(request.request) && typeof request.request.text === 'string'
      ? request.request.text
      : '';
  const size = isPlainObject(request) && typeof request.size === 'number' ? request.size : 20;
  const found = [...clients]
    .filter(
      (client) =>
        pad(client.id, 9).includes(text) ||
        displayName(client).includes(text) ||
        (client.externalId ?? '').includes(text) ||
        (client.mobileNo ?? '').includes(text) ||
        (behaviour.searchMatchesIdentifiers &&
          client.identifiers.some((identifier) => identifier.documentKey.includes(text))),
    )
    .sort((a, b) => b.id - a.id);
  const content = found.slice(0, size).map((client) =>
    withOptional(
      {
        id: client.id,
        displayName: displayName(client),
        accountNumber: pad(client.id, 9),
        officeId: 1,
        officeName: 'Head Office',
        status: clientStatus(client),
      },
      { externalId: client.externalId, mobileNo: client.mobileNo },
    ),
  );
  return {
    content,
    totalElements: found.length,
    totalPages: Math.ceil(found.length / Math.max(1, size)),
    size,
    number: 0,
    numberOfElements: content.length,
    first: true,
    last: found.length <= size,
    empty: content.length === 0,
  };
}

/**
 * `GET /v1/search?query=…&resource=clientIdentifiers[&exactMatch=true]`: one row per client
 * identifier whose document key equals the query (or holds it, without `exactMatch`), newest
 * identifier first, at most 50 rows. Other resources are not served.
 */
export function searchV1(clients: Iterable<StandInClient>, query: URLSearchParams): Json[] {
  const text = query.get('query') ?? '';
  const resources = (query.get('resource') ?? '').split(',');
  if (!resources.includes('clientIdentifiers')) return [];
  const exact = query.get('exactMatch') === 'true';
  const rows: { order: number; row: Json }[] = [];
  for (const client of clients)
    client.identifiers.forEach((identifier, index) => {
      if (exact ? identifier.documentKey !== text : !identifier.documentKey.includes(text)) return;
      rows.push({
        order: client.id * 100 + index,
        row: {
          entityId: client.id * 100 + index,
          entityName: identifier.documentKey,
          entityType: 'CLIENTIDENTIFIER',
          parentId: client.id,
          parentName: displayName(client),
          entityStatus: clientStatus(client),
        },
      });
    });
  return rows
    .sort((a, b) => b.order - a.order)
    .slice(0, V1_SEARCH_ROWS)
    .map(({ row }) => row);
}
