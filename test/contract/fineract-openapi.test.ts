/**
 * Every request the Fineract connector sends, checked against Fineract's own published OpenAPI
 * document (the trimmed copy in test/fixtures/fineract-openapi/): the operation exists for
 * the method and path, path and query parameters are declared and of their type, the body
 * validates against the operation's schema and carries no field it does not declare, and the
 * document's two security schemes (Basic, the tenant header) are sent.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Ajv, type AnySchema } from 'ajv';
import { FineractCoreConnector } from '../../src/adapters/core/fineract/fineract-core-connector.js';
import {
  startFineractStandIn,
  STAND_IN_CONTEXT_PATH,
  type RecordedRequest,
  type RunningFineractStandIn,
} from '../../src/fakes/fineract-stand-in/fineract-stand-in.js';
import { DEMO_CLIENTS } from '../../src/fakes/fineract-stand-in/stand-in-data.js';
import { AesGcmSealer } from '../../src/adapters/crypto/aes-gcm-sealer.js';
import { encryptionKey } from '../../src/adapters/crypto/encryption-keys.js';
import { FINERACT_DEFAULTS } from '../../src/domain/institution.js';
import { FakeClock } from '../support/fake-clock.js';

interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header' | 'cookie';
  readonly required?: boolean;
  readonly schema: AnySchema;
}
interface Operation {
  readonly parameters?: Parameter[];
  readonly requestBody?: { readonly content: Record<string, { readonly schema: AnySchema }> };
}
interface OpenApi {
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components: { readonly schemas: Record<string, unknown>; readonly securitySchemes: Record<string, unknown> };
}

const document = JSON.parse(
  readFileSync(new URL('../../../test/fixtures/fineract-openapi/fineract-trimmed.json', import.meta.url), 'utf8'),
) as OpenApi;
/** The document's `servers` entry: `/fineract-provider/api`. */
const API_PREFIX = `${STAND_IN_CONTEXT_PATH}/api`;

const ajv = new Ajv({ strict: false, allErrors: true });
// OpenAPI's integer formats: the type already says what is checked.
ajv.addFormat('int32', true).addFormat('int64', true);
ajv.addSchema({ components: document.components }, 'fineract.json');

/** The schema with `$ref`s resolved inside the document, for walking it. */
function resolve(schema: unknown): Record<string, unknown> {
  let current = schema as Record<string, unknown>;
  while (typeof current.$ref === 'string')
    current = document.components.schemas[current.$ref.split('/').pop()!] as Record<string, unknown>;
  return current;
}

/** Fields of `value` the schema does not declare, as paths. */
function undeclared(value: unknown, schema: unknown, path: string): string[] {
  const resolved = resolve(schema);
  if (Array.isArray(value))
    return value.flatMap((item, index) => undeclared(item, resolved.items, `${path}[${index}]`));
  if (typeof value !== 'object' || value === null) return [];
  const properties = (resolved.properties ?? {}) as Record<string, unknown>;
  return Object.entries(value).flatMap(([name, item]) =>
    Object.hasOwn(properties, name) ? undeclared(item, properties[name], `${path}.${name}`) : [`${path}.${name}`],
  );
}

function templateMatch(template: string, path: string): Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = new RegExp(
    `^${template.replace(/\{([^}]+)\}/g, (_, name: string) => {
      names.push(name);
      return '([^/]+)';
    })}$`,
  );
  const match = pattern.exec(path);
  if (!match) return undefined;
  return Object.fromEntries(names.map((name, index) => [name, decodeURIComponent(match[index + 1]!)]));
}

/**
 * Query parameters Fineract reads that its document does not declare: the deposit resources
 * take `associations` from the request's `UriInfo` (`FixedDepositAccountsApiResource` and
 * `RecurringDepositAccountsApiResource`, `populateTemplateAndAssociations`, at 1.9.0, 1.10.1
 * and develop), as docs/cores/fineract.md#undeclared-fields says.
 */
const READ_FROM_SOURCE: Readonly<Record<string, readonly string[]>> = {
  '/v1/fixeddepositaccounts/{accountId}': ['associations'],
  '/v1/recurringdepositaccounts/{accountId}': ['associations'],
};

/** Problems of one request against the document; empty when it conforms. */
function problemsOf(request: RecordedRequest): string[] {
  const url = new URL(request.path, 'http://fineract');
  if (!url.pathname.startsWith(`${API_PREFIX}/`)) return [`${url.pathname} is not below ${API_PREFIX}`];
  const path = url.pathname.slice(API_PREFIX.length);
  const method = request.method.toLowerCase();
  const found = Object.entries(document.paths)
    .map(([template, item]) => ({ template, item, params: templateMatch(template, path) }))
    .find((candidate) => candidate.params !== undefined && candidate.item[method] !== undefined);
  if (!found) return [`${request.method} ${path}: no such operation in the document`];
  const operation = found.item[method]!;
  const problems: string[] = [];
  const declared = operation.parameters ?? [];
  const check = (parameter: Parameter, raw: string) => {
    const schema = parameter.schema as { type?: string };
    const value =
      schema.type === 'integer' && /^-?\d+$/.test(raw) ? Number(raw) : schema.type === 'boolean' ? raw === 'true' : raw;
    if (!ajv.validate(parameter.schema, value))
      problems.push(`${parameter.in} parameter ${parameter.name}: ${ajv.errorsText()}`);
  };
  for (const [name, raw] of Object.entries(found.params!)) {
    const parameter = declared.find((candidate) => candidate.in === 'path' && candidate.name === name);
    if (!parameter) problems.push(`path parameter ${name} is not declared`);
    else check(parameter, raw);
  }
  for (const [name, raw] of url.searchParams) {
    const parameter = declared.find((candidate) => candidate.in === 'query' && candidate.name === name);
    if (!parameter && READ_FROM_SOURCE[found.template]?.includes(name)) continue;
    if (!parameter) problems.push(`query parameter ${name} is not declared`);
    else check(parameter, raw);
  }
  for (const parameter of declared.filter((candidate) => candidate.required && candidate.in === 'query'))
    if (!url.searchParams.has(parameter.name)) problems.push(`required query parameter ${parameter.name} is missing`);
  if (operation.requestBody) {
    const type = String(request.headers['content-type'] ?? '').split(';')[0]!;
    const media = operation.requestBody.content[type];
    if (!media) problems.push(`content type ${type} is not declared`);
    else {
      const body: unknown = JSON.parse(request.body);
      const schema = {
        $ref: `fineract.json#/components/schemas/${String((media.schema as { $ref: string }).$ref)
          .split('/')
          .pop()}`,
      };
      if (!ajv.validate(schema, body)) problems.push(`body: ${ajv.errorsText()}`);
      problems.push(...undeclared(body, media.schema, 'body').map((field) => `${field} is not declared`));
    }
  } else if (request.body !== '') problems.push('a body where the operation declares none');
  // The document's security: Basic and the tenant header, both on every call.
  if (!/^Basic [A-Za-z0-9+/]+=*$/.test(String(request.headers.authorization))) problems.push('no Basic authorization');
  if (!request.headers['fineract-platform-tenantid']) problems.push('no fineract-platform-tenantid header');
  return problems;
}

describe('Fineract connector requests against Fineract’s published OpenAPI document', () => {
  let standIn: RunningFineractStandIn;

  before(async () => {
    standIn = await startFineractStandIn();
  });
  after(() => standIn.close());

  it('the document holds exactly the operations the connector calls', () => {
    assert.deepEqual(
      Object.entries(document.paths).flatMap(([path, item]) =>
        Object.keys(item)
          .filter((key) => key !== 'parameters')
          .map((method) => `${method.toUpperCase()} ${path}`),
      ),
      [
        'POST /v2/clients/search',
        'GET /v1/clients/{clientId}/identifiers',
        'GET /v1/clients/{clientId}',
        'GET /v1/clients/external-id/{externalId}',
        'GET /v1/clients/{clientId}/accounts',
        'GET /v1/savingsaccounts/{accountId}',
        'GET /v1/savingsaccounts/{savingsId}/transactions/search',
        'GET /v1/fixeddepositaccounts/{accountId}',
        'GET /v1/recurringdepositaccounts/{accountId}',
        'GET /v1/loans/{loanId}',
      ],
    );
  });

  it('the validator refuses what the document does not allow', () => {
    const base = {
      method: 'GET',
      headers: { authorization: 'Basic eDp5', 'fineract-platform-tenantid': 'default' },
      body: '',
    };
    assert.deepEqual(problemsOf({ ...base, path: `${API_PREFIX}/v1/clients/1` }), []);
    assert.match(problemsOf({ ...base, path: `${API_PREFIX}/v1/clients/x1` }).join(), /path parameter clientId/);
    assert.match(
      problemsOf({ ...base, path: `${API_PREFIX}/v1/clients/1?ssn=1` }).join(),
      /query parameter ssn is not declared/,
    );
    assert.match(
      problemsOf({ ...base, path: `${API_PREFIX}/v1/fixeddepositaccounts/1?associations=transactions&x=1` }).join(),
      /^query parameter x is not declared$/,
    );
    assert.match(
      problemsOf({ ...base, method: 'DELETE', path: `${API_PREFIX}/v1/sessions` }).join(),
      /no such operation/,
    );
    const search = {
      ...base,
      method: 'POST',
      path: `${API_PREFIX}/v2/clients/search`,
      headers: { ...base.headers, 'content-type': 'application/json' },
    };
    assert.deepEqual(problemsOf({ ...search, body: '{"request":{"text":"1"},"page":0,"size":50}' }), []);
    assert.match(problemsOf({ ...search, body: '{"request":{"text":1},"page":0}' }).join(), /body: .*must be string/);
    assert.match(
      problemsOf({ ...search, body: '{"request":{"text":"1","ssn":"1"}}' }).join(),
      /body\.request\.ssn is not declared/,
    );
    assert.match(problemsOf({ ...base, headers: {}, path: `${API_PREFIX}/v1/clients/1` }).join(), /no Basic.*tenantid/);
  });

  it('every request of every registration, account read and transactions page conforms', async () => {
    const clock = new FakeClock();
    const sealer = new AesGcmSealer([encryptionKey(randomBytes(32))]);
    const connectors = (['id', 'external-id'] as const).map(
      (customerKey) =>
        new FineractCoreConnector({
          ...FINERACT_DEFAULTS,
          customerKey,
          baseUrl: standIn.url,
          credentials: standIn.credentials,
          institution: 'default',
          timeoutMs: 2000,
          clock,
          sealer,
        }),
    );
    try {
      const [byId, byExternalId] = connectors as [FineractCoreConnector, FineractCoreConnector];
      await byId.startSession(
        { kind: 'demographics', socialSecurityNumber: '123456789', accountNumber: '70001234', birthDay: '1980-04-12' },
        { requestId: 'r-1' },
      );
      for (const client of DEMO_CLIENTS) {
        const session = await byExternalId
          .startSession({ kind: 'customerKey', customerKey: client.externalId! }, { requestId: 'r-2' })
          .catch(() => undefined);
        if (session)
          for (const account of await byExternalId.listAccounts(session.delegateReferenceId, { requestId: 'r-3' }))
            await byExternalId.listTransactions(
              session.delegateReferenceId,
              { accountId: account.id, fromDate: '2025-03-01', toDate: '2026-03-01', status: 'both', limit: 100 },
              { requestId: 'r-6' },
            );
        await byId
          .startSession({ kind: 'customerKey', customerKey: String(client.id) }, { requestId: 'r-4' })
          .catch(() => undefined);
      }
      await byId.ping({ requestId: 'r-5' });
    } finally {
      await Promise.all(connectors.map((connector) => connector.close()));
    }
    const apiRequests = standIn.requests.filter(
      (request) => !request.path.startsWith(`${STAND_IN_CONTEXT_PATH}/actuator/`),
    );
    const operations = new Set(
      apiRequests.map(
        (request) =>
          `${request.method} ${request.path.replace(/\d+/g, '{n}').replace(/external-id\/[^?]+/, 'external-id/{x}')}`,
      ),
    );
    // The ten operations; the search and the loan each with two query strings (accounts', transactions').
    assert.equal(operations.size, 12, [...operations].join('\n'));
    for (const request of apiRequests) assert.deepEqual(problemsOf(request), [], `${request.method} ${request.path}`);
  });
});
