/**
 * Answers that help a person or a program after a mistake.
 * Revoke answers `200 {}` as JSON; `GET /` is an index; every gateway error carries
 * `data.requestId` and a `data.reason`; messages are words, paths JSON Pointers; a
 * request without HTTP Basic is told to use it; the IP allow-list holds at the token
 * endpoint; the gateway's 403 names the address; limited routes carry RateLimit headers;
 * the API reference lists grant_type as an enum and the token endpoint's error table.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pgliteBackend } from '../../support/backends.js';
import { basic, createHarness, type Harness } from '../../support/harness.js';
import { CLIENT_AUTHENTICATION_FAILED } from '../../../src/domain/errors.js';
import { openApiDocument } from '../../../src/http/openapi-document.js';
import { postRevoke, postToken } from '../oauth/oauth-requests.js';
import { PACKAGE_INFO } from '../../../src/config/package-info.js';

describe('answers after a mistake', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness(pgliteBackend, {
      env: { COREGATE_RATE_LIMIT_GATEWAY_PER_MINUTE: '600', COREGATE_RATE_LIMIT_TOKEN_PER_MINUTE: '600' },
    });
  });
  after(() => h?.close());

  it('revoke answers 200 {} as application/json', async () => {
    const client = await h.client();
    const response = await postRevoke(h, { client, body: { token: 'cgr_unknown' } });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^application\/json/);
    assert.deepEqual(response.json(), {});
  });

  it('GET / answers a small JSON index', async () => {
    const response = await h.app.inject({ method: 'GET', url: '/' });
    assert.equal(response.statusCode, 200);
    const body = response.json<{ name: string; version: string; links: Record<string, string> }>();
    assert.equal(body.name, 'coregate');
    assert.match(body.version, /^\d+\.\d+\.\d+/);
    assert.equal(body.links['docs'], '/docs');
    assert.equal(body.links['jwks'], '/.well-known/jwks.json');
    assert.equal(body.links['discovery'], '/.well-known/oauth-authorization-server');
  });

  it('every gateway error carries data.requestId and a data.reason', async () => {
    const client = await h.client();
    const token = await h.token(client);
    const auth = { authorization: `Bearer ${token}` };
    const cases: Array<
      [
        string,
        { method: 'GET' | 'POST'; url: string; headers?: Record<string, string>; payload?: object },
        number,
        string,
      ]
    > = [
      ['unknown route', { method: 'GET', url: '/core/nothing', headers: auth }, 404, 'route_not_found'],
      [
        'unregistered customer',
        { method: 'GET', url: '/core/accounts?customerId=nobody', headers: auth },
        404,
        'customer_not_registered',
      ],
      ['no token', { method: 'GET', url: '/core/accounts?customerId=x' }, 401, 'missing_token'],
      [
        'bad token',
        { method: 'GET', url: '/core/accounts?customerId=x', headers: { authorization: 'Bearer abc' } },
        401,
        'invalid_token',
      ],
      [
        'bad body',
        { method: 'POST', url: '/core/sessions', headers: auth, payload: { registration: {} } },
        400,
        'invalid_request',
      ],
    ];
    for (const [why, request, status, reason] of cases) {
      const response = await h.app.inject({
        ...request,
        headers: { ...request.headers, 'x-request-id': `req-${status}-${reason}` },
      });
      assert.equal(response.statusCode, status, why);
      const body = response.json<{ data: { reason: string; requestId: string } }>();
      assert.equal(body.data.reason, reason, why);
      assert.equal(body.data.requestId, `req-${status}-${reason}`, why);
    }
  });

  it('messages in words, paths as JSON Pointers: an empty customerId echoes no regex', async () => {
    const token = await h.token(await h.client());
    const response = await h.app.inject({
      method: 'GET',
      url: '/core/accounts?customerId=',
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(response.statusCode, 400);
    assert.doesNotMatch(response.body, /pattern|\^\[/);
    const errors = response.json<{ data: { errors: { path: string; message: string }[] } }>().data.errors;
    assert.deepEqual(
      errors.map((e) => e.path),
      ['/customerId'],
    );
  });

  it('no HTTP Basic (secret in the form body): invalid_client naming the methods, client_secret_basic among them', async () => {
    const client = await h.client();
    const response = await postToken(h, {
      authorization: null,
      body: { grant_type: 'client_credentials', client_id: client.id, client_secret: client.secret },
    });
    assert.equal(response.statusCode, 400);
    const body = response.json<{ error: string; error_description: string }>();
    assert.equal(body.error, 'invalid_client');
    assert.match(body.error_description, /client_secret_basic/);
    // With Basic, a client_secret in the body stays invalid_request (docs/behaviour.md#client-authentication).
    const both = await postToken(h, {
      client,
      body: { grant_type: 'client_credentials', client_secret: client.secret },
    });
    assert.equal(both.json<{ error: string }>().error, 'invalid_request');
  });

  it('the IP allow-list holds at the token endpoint (invalid_client, audited) and the gateway 403 names the address', async () => {
    const client = await h.client({ allowedIps: ['10.9.9.0/24'] });
    const response = await postToken(h, { client, body: { grant_type: 'client_credentials' } });
    assert.equal(response.statusCode, 400);
    const body = response.json<{ error: string; error_description: string }>();
    assert.equal(body.error, 'invalid_client');
    // The same text as any other refusal; the address is in the log line and the audit row.
    assert.equal(body.error_description, CLIENT_AUTHENTICATION_FAILED);
    const rows = await h.services.database.query<{ reason: string }>(
      `SELECT reason FROM audit_log WHERE client_id = $1 AND event_type = 'token.denied'`,
      [client.id],
    );
    assert.deepEqual(
      rows.map((r) => r.reason),
      ['ip_not_whitelisted'],
    );

    // A token issued before the allow-list was set (or the list changed since) meets the gateway's 403.
    const open = await h.client();
    const token = await h.token(open);
    await h.services.database.query(`UPDATE clients SET allowed_ips = $2::text[] WHERE id = $1`, [
      open.id,
      ['10.9.9.0/24'],
    ]);
    h.clock.advance(120);
    const forbidden = await h.app.inject({
      method: 'GET',
      url: '/core/accounts?customerId=x',
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(forbidden.statusCode, 403, forbidden.body);
    const data = forbidden.json<{ data: { ip: string; reason: string } }>().data;
    assert.equal(data.ip, '127.0.0.1');
    assert.equal(data.reason, 'ip_not_whitelisted');
  });

  it('RateLimit-Limit/Remaining/Reset on limited routes', async () => {
    const client = await h.client();
    const tokenResponse = await postToken(h, {
      authorization: basic(client.id, client.secret),
      body: { grant_type: 'client_credentials' },
    });
    assert.equal(tokenResponse.headers['ratelimit-limit'], '600');
    const token = tokenResponse.json<{ access_token: string }>().access_token;
    const first = await h.app.inject({
      method: 'GET',
      url: '/core/accounts?customerId=nobody',
      headers: { authorization: `Bearer ${token}` },
    });
    const second = await h.app.inject({
      method: 'GET',
      url: '/core/accounts?customerId=nobody',
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(first.headers['ratelimit-limit'], '600');
    assert.equal(Number(first.headers['ratelimit-remaining']) - 1, Number(second.headers['ratelimit-remaining']));
    assert.ok(Number(second.headers['ratelimit-reset']) >= 1);
  });

  it('the reference: grant_type an enum, the token error table, revoke 200, no unsupported_token_type on token', async () => {
    const document = (await openApiDocument(PACKAGE_INFO.version)) as {
      paths: Record<
        string,
        Record<
          string,
          {
            description?: string;
            requestBody?: { content: Record<string, { schema: { properties: Record<string, { enum?: string[] }> } }> };
            responses: Record<string, unknown>;
          }
        >
      >;
    };
    const token = document.paths['/oauth2/token']!['post']!;
    const grant = token.requestBody!.content['application/x-www-form-urlencoded']!.schema.properties['grant_type']!;
    assert.deepEqual(grant.enum, ['client_credentials', 'refresh_token']);
    assert.match(token.description ?? '', /\| condition \| status \| `error` \|/);
    assert.doesNotMatch(JSON.stringify(token), /unsupported_token_type/);
    assert.ok(document.paths['/oauth2/revoke']!['post']!.responses['200']);
  });
});
