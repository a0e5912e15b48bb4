/**
 * Correctness checks run before any load: the answer must be a 200 with the right
 * body (and what a registration stores must be there), or the scenario fails
 * without measuring.
 */
import { isDeepStrictEqual } from 'node:util';
import { createLocalJWKSet, jwtVerify } from 'jose';

export class CheckFailed extends Error {}

function fail(what, detail) {
  throw new CheckFailed(`${what}: ${detail}`);
}

export function basicAuth(client) {
  const encode = (value) => encodeURIComponent(value).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(client.client_id)}:${encode(client.client_secret)}`).toString('base64')}`;
}

export const TOKEN_BODY = 'grant_type=client_credentials&scope=core%2Fmain';

/** The token request every token benchmark sends. */
export function tokenRequest(client) {
  return {
    method: 'POST',
    headers: { authorization: basicAuth(client), 'content-type': 'application/x-www-form-urlencoded' },
    body: TOKEN_BODY,
  };
}

async function readJson(response, what) {
  const text = await response.text();
  try {
    return { text, json: JSON.parse(text) };
  } catch {
    return fail(what, `answer is not JSON: ${text.slice(0, 200)}`);
  }
}

/**
 * POSTs a client_credentials token request and checks the answer: 200, Bearer,
 * scope core/main, and an access token that verifies against the server's JWKS
 * with the expected issuer and client. Returns the access token.
 */
export async function checkTokenEndpoint({ what, tokenUrl, jwksUrl, issuer, client }) {
  const response = await fetch(tokenUrl, tokenRequest(client));
  const { json } = await readJson(response, what);
  if (response.status !== 200) fail(what, `status ${response.status}: ${JSON.stringify(json)}`);
  if (json.token_type !== 'Bearer') fail(what, `token_type ${json.token_type}`);
  if (json.scope !== 'core/main') fail(what, `scope ${json.scope}`);
  if (!(json.expires_in > 0)) fail(what, `expires_in ${json.expires_in}`);
  const jwks = await (await fetch(jwksUrl)).json();
  try {
    const { payload, protectedHeader } = await jwtVerify(json.access_token, createLocalJWKSet(jwks), { issuer });
    if (payload.client_id !== client.client_id) fail(what, 'the token names another client');
    if (payload.scope !== 'core/main') fail(what, 'the token has another scope');
    return { accessToken: json.access_token, alg: protectedHeader.alg };
  } catch (error) {
    if (error instanceof CheckFailed) throw error;
    return fail(what, `the access token does not verify: ${error.message}`);
  }
}

/** Registers a customer with coregate and checks the answer. */
export async function register(url, accessToken, body, expectedCustomerKey) {
  const what = `POST /core/sessions (${body.registration.customerId})`;
  const response = await fetch(`${url}/core/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const { json } = await readJson(response, what);
  if (response.status !== 200) fail(what, `status ${response.status}: ${JSON.stringify(json)}`);
  const expected = { customerId: body.registration.customerId, customerKey: expectedCustomerKey };
  if (!isDeepStrictEqual(json.data, expected))
    fail(what, `data ${JSON.stringify(json.data)}, expected ${JSON.stringify(expected)}`);
  return json;
}

/**
 * Registers a customer through the registration floor (`baselines/registration-floor.mjs`)
 * and checks that it answered 200 with the customer and stored one row for it: read back
 * through the floor, and on PostgreSQL also from its table directly (`readRow(customerId)`
 * resolves with the number of rows).
 */
export async function checkRegistrationFloor(url, body, expectedCustomerKey, readRow) {
  const { customerId } = body.registration;
  const what = `registration floor POST /core/sessions (${customerId})`;
  const response = await fetch(`${url}/core/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const { json } = await readJson(response, what);
  if (response.status !== 200) fail(what, `status ${response.status}: ${JSON.stringify(json)}`);
  const expected = { customerId, customerKey: expectedCustomerKey };
  if (!isDeepStrictEqual(json, expected))
    fail(what, `answer ${JSON.stringify(json)}, expected ${JSON.stringify(expected)}`);
  const stored = await fetch(`${url}/_floor/registrations/${encodeURIComponent(customerId)}`);
  const { json: row } = await readJson(stored, `${what}, its row`);
  if (stored.status !== 200 || row.customerKey !== expectedCustomerKey || !(Date.parse(row.expiresAt) > Date.now()))
    fail(what, `no row stored with the customer key and a future expiry: ${JSON.stringify(row)}`);
  if (readRow) {
    const rows = await readRow(customerId);
    if (rows !== 1) fail(what, `${rows} rows in its table for the customerId, expected 1`);
  }
}

/**
 * GETs an accounts URL and checks the accounts in it (`pick` finds them in the
 * body: coregate's envelope or the core's `{accounts}`). Returns the body text.
 */
export async function checkAccounts({ what, url, headers, expectedAccounts, pick }) {
  const response = await fetch(url, { headers });
  const { text, json } = await readJson(response, what);
  if (response.status !== 200) fail(what, `status ${response.status}: ${text.slice(0, 300)}`);
  if (!isDeepStrictEqual(pick(json), expectedAccounts))
    fail(what, `the accounts differ from the simulator's data: ${text.slice(0, 300)}`);
  return text;
}
