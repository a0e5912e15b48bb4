/**
 * The API reference never drifts: `docs/openapi.json` is exactly what the app
 * generates from its route schemas (`npm run openapi` writes it), and it documents
 * the token endpoint and both gateway endpoints with their schemas and security.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ENVELOPE_KINDS, ERROR_CODES, type ErrorCode } from '../../../src/domain/errors.js';
import { formatOpenApiDocument, openApiDocument } from '../../../src/http/openapi-document.js';
import { PACKAGE_INFO } from '../../../src/config/package-info.js';

/** The repository root (this file runs from `dist/test/http/openapi/`). */
const COMMITTED = new URL('../../../../docs/openapi.json', import.meta.url);

interface Operation {
  readonly security?: Record<string, string[]>[];
  readonly requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  readonly parameters?: { name: string; in: string; required?: boolean }[];
  readonly responses: Record<
    string,
    { description: string; content?: Record<string, { schema: Record<string, unknown> }> }
  >;
  readonly summary?: string;
  readonly description?: string;
}

describe('the OpenAPI document', () => {
  it('docs/openapi.json is what the app generates (run `npm run openapi` after changing a route schema)', async () => {
    const generated = formatOpenApiDocument(await openApiDocument(PACKAGE_INFO.version));
    assert.ok(
      generated === readFileSync(COMMITTED, 'utf8'),
      'docs/openapi.json is out of date: run `npm run openapi` and commit it',
    );
  });

  it('documents the token endpoint and both gateway endpoints, with schemas and security', async () => {
    const document = (await openApiDocument(PACKAGE_INFO.version)) as {
      openapi: string;
      paths: Record<string, Record<string, Operation>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    assert.equal(document.openapi, '3.1.0');
    assert.deepEqual(Object.keys(document.components.securitySchemes).sort(), ['bearerAuth', 'clientSecretBasic']);

    const token = document.paths['/oauth2/token']?.['post'];
    assert.ok(token, 'POST /oauth2/token');
    assert.deepEqual(token.security, [{ clientSecretBasic: [] }]);
    const form = token.requestBody?.content['application/x-www-form-urlencoded']?.schema as {
      properties: Record<string, unknown>;
      required: string[];
    };
    assert.deepEqual(Object.keys(form.properties).sort(), ['grant_type', 'refresh_token', 'scope']);
    assert.deepEqual(form.required, ['grant_type']);
    // Every status the endpoint answers, not only its success and its OAuth errors.
    assert.deepEqual(Object.keys(token.responses).sort(), ['200', '400', '405', '429', '503']);
    const revoke = document.paths['/oauth2/revoke']?.['post'];
    assert.ok(revoke, 'POST /oauth2/revoke');
    assert.deepEqual(Object.keys(revoke.responses).sort(), ['200', '400', '405', '429', '503']);
    // `{}` as application/json (was an empty body without a Content-Type).
    assert.ok(revoke.responses['200']!.content?.['application/json'], 'revocation answers 200 {} as JSON');
    assert.ok(
      (token.responses['200']!.content!['application/json']!.schema['required'] as string[]).includes('access_token'),
    );
    assert.ok(token.description && token.description.length > 200, 'the endpoint’s rules are described');

    const sessions = document.paths['/core/sessions']?.['post'];
    assert.ok(sessions, 'POST /core/sessions');
    assert.deepEqual(sessions.security, [{ bearerAuth: [] }]);
    const registration = sessions.requestBody?.content['application/json']?.schema as { anyOf: { title: string }[] };
    assert.deepEqual(
      registration.anyOf.map((form) => form.title),
      ['Form A: demographics', 'Form B: core customer key'],
    );
    assert.deepEqual(Object.keys(sessions.responses).sort(), [
      '200',
      '400',
      '401',
      '403',
      '409',
      '413',
      '429',
      '502',
      '503',
    ]);

    const accounts = document.paths['/core/accounts']?.['get'];
    assert.ok(accounts, 'GET /core/accounts');
    assert.deepEqual(accounts.security, [{ bearerAuth: [] }]);
    assert.deepEqual(
      accounts.parameters?.map(({ name, in: where, required }) => ({ name, in: where, required })),
      [{ name: 'customerId', in: 'query', required: true }],
    );
    const ok = accounts.responses['200']!.content!['application/json']!.schema as {
      properties: { data: { type: string; items: Record<string, unknown> } };
    };
    assert.equal(ok.properties.data.type, 'array');
    assert.deepEqual(Object.keys(accounts.responses).sort(), ['200', '400', '401', '403', '404', '429', '502', '503']);
    for (const [status, response] of Object.entries({ ...sessions.responses, ...accounts.responses })) {
      assert.notEqual(response.description, 'Default Response', `${status} is described`);
    }
  });

  it('documents each gateway error status with its own name, className, code, reasons and example (and Retry-After on 429 and 503)', async () => {
    const document = (await openApiDocument(PACKAGE_INFO.version)) as {
      paths: Record<string, Record<string, Operation>>;
    };
    type ErrorResponse = {
      description: string;
      headers?: Record<string, unknown>;
      content: Record<
        string,
        {
          schema: {
            properties: Record<string, { enum?: unknown[]; properties?: Record<string, { enum?: unknown[] }> }>;
          };
          example?: Record<string, unknown>;
        }
      >;
    };
    let checked = 0;
    for (const [path, operations] of Object.entries(document.paths)) {
      if (!path.startsWith('/core/')) continue;
      for (const [method, operation] of Object.entries(operations)) {
        for (const [status, response] of Object.entries(operation.responses as Record<string, ErrorResponse>)) {
          if (status === '200') continue;
          const where = `${method.toUpperCase()} ${path} ${status}`;
          const kind = Object.entries(ENVELOPE_KINDS).find(([, { status: code }]) => String(code) === status);
          assert.ok(kind, `${where}: a status of the envelope table`);
          const [name, { className }] = kind;
          const media = response.content['application/json']!;
          const properties = media.schema.properties;
          assert.deepEqual(
            [properties['name']!.enum, properties['className']!.enum, properties['code']!.enum],
            [[name], [className], [Number(status)]],
            `${where}: its own name, className and code`,
          );
          const reasons = properties['data']!.properties!['reason']!.enum as string[];
          assert.ok(reasons.length > 0, `${where}: lists its reasons`);
          for (const reason of reasons)
            assert.equal(
              ENVELOPE_KINDS[ERROR_CODES[reason as ErrorCode].envelope].status,
              Number(status),
              `${where}: ${reason} is a ${status} code`,
            );
          const example = media.example as {
            name: string;
            className: string;
            code: number;
            data: { reason: string; requestId: string; errors?: unknown[] };
          };
          assert.ok(example, `${where}: an example`);
          assert.deepEqual(
            [example.name, example.className, example.code],
            [name, className, Number(status)],
            `${where}: the example is its own`,
          );
          assert.ok(reasons.includes(example.data.reason), `${where}: the example's reason is one of the listed`);
          assert.equal(typeof example.data.requestId, 'string', `${where}: the example has a requestId`);
          if (status === '400')
            assert.ok(
              Array.isArray(example.data.errors) && example.data.errors.length > 0,
              `${where}: data.errors in the example`,
            );
          if (status === '429' || status === '503')
            assert.ok(response.headers?.['retry-after'], `${where}: Retry-After documented`);
          checked += 1;
        }
      }
    }
    assert.ok(checked >= 20, `every gateway error response checked (${checked})`);
  });
});
