/**
 * 2b. The accounts hot path with a DPoP-bound token (RFC 9449; docs/client-security.md) beside
 * the same read with a bearer token, on one coregate, in rounds taken in turn: what a DPoP
 * read adds (checking the proof's signature and claims, recording its `jti` once) in CPU per
 * request. Every request carries a proof of its own, signed by the load generator before
 * the timed window (`load-worker.mjs`). Run by `gateway.mjs`, on the primary storage only.
 */
import { calculateJwkThumbprint, decodeJwt } from 'jose';
import { DEMO_CUSTOMERS } from '../../dist/src/fakes/core-simulator/demo-data.js';
import { basicAuth, CheckFailed, checkAccounts, TOKEN_BODY } from '../lib/checks.mjs';
import { dpopKey, dpopProof } from '../lib/dpop.mjs';
import { measurePair, roundsNote } from '../lib/measure.mjs';
import { prepareHotCustomer } from './accounts.mjs';

export const name = 'accounts-dpop';

/** A DPoP read costs at most this many times a bearer read's CPU. */
export const MAX_CPU_RATIO = 2;

/** Measured on the deployed storage only (PostgreSQL when it is there): the replay store is its database. */
export const onStorage = (ctx, kind) => kind === ctx.primaryStorage;

/** A client with a DPoP key and its DPoP-bound access token, checked (`token_type`, `cnf.jkt`). */
async function dpopBoundToken(coregate) {
  const what = 'coregate POST /oauth2/token with a DPoP proof';
  const client = await coregate.createClient('bench accounts dpop', 'bench');
  const key = await dpopKey();
  const tokenUrl = `${coregate.url}/oauth2/token`;
  const response = await fetch(tokenUrl, {
    method: 'POST',
    headers: {
      authorization: basicAuth(client),
      'content-type': 'application/x-www-form-urlencoded',
      dpop: await dpopProof(key, { htm: 'POST', htu: tokenUrl }),
    },
    body: TOKEN_BODY,
  });
  const json = await response.json();
  if (response.status !== 200 || json.token_type !== 'DPoP')
    throw new CheckFailed(
      `${what}: status ${response.status}, ${JSON.stringify({ ...json, access_token: undefined })}`,
    );
  if (decodeJwt(json.access_token).cnf?.jkt !== (await calculateJwkThumbprint(key.publicJwk)))
    throw new CheckFailed(`${what}: the token is not bound to the client's key`);
  return { key, accessToken: json.access_token };
}

/**
 * Registers the hot-path customer (with the bearer `accessToken`) and checks its accounts with a
 * DPoP-bound token of another client of the same platform; returns both load specs.
 */
export async function prepareDpopRead(ctx, coregate, accessToken, tag) {
  const bearer = await prepareHotCustomer(ctx, coregate, accessToken);
  const { key, accessToken: boundToken } = await dpopBoundToken(coregate);
  const htu = `${coregate.url}${bearer.path.split('?', 1)[0]}`;
  const headers = { authorization: `DPoP ${boundToken}` };
  await checkAccounts({
    what: `coregate GET ${bearer.path} with a DPoP-bound token`,
    url: `${coregate.url}${bearer.path}`,
    headers: { ...headers, dpop: await dpopProof(key, { htm: 'GET', htu, accessToken: boundToken }) },
    expectedAccounts: DEMO_CUSTOMERS[0].accounts,
    pick: (json) => json.data,
  });
  return { bearer, spec: { ...bearer, headers, dpop: { tag, key, htm: 'GET', htu, accessToken: boundToken } } };
}

/** coregate's GET /core/accounts with a DPoP-bound token and with a bearer token, in turns. */
export async function measureCoregate(ctx, { coregate, accessToken, kind, peers }) {
  const { bearer, spec } = await prepareDpopRead(ctx, coregate, accessToken, `${ctx.runId}-${kind}`);
  const { key } = spec.dpop;
  ctx.log(
    `accounts-dpop: coregate on ${kind} answers the right accounts to a DPoP-bound token; loading it with a DPoP token and a bearer token, in turns`,
  );
  const pair = await measurePair(ctx, {
    subject: { server: coregate, peers, spec },
    baseline: { server: coregate, peers, spec: bearer },
  });
  const { dpopSignedDuringLoad: signedDuring, dpopMissing: missing } = pair.subject;
  const row = ctx.results.addRow({
    scenario: 'accounts',
    variant: `${kind}, DPoP-bound token (${key.alg} proofs)`,
    subject: 'coregate',
    measurement: pair.subject,
    notes: [
      roundsNote(pair),
      signedDuring
        ? `the load generator signed ${signedDuring} proofs during the measured rounds (its batch ran short)`
        : 'every proof signed before its timed round',
      ...(missing
        ? [
            `${missing} requests went without a proof (the load generator's proofs ran out): their 401s are those of this row`,
          ]
        : []),
    ],
  });
  const bearerRow = ctx.results.addRow({
    scenario: 'accounts',
    variant: `${kind}, bearer token, in turns with DPoP`,
    subject: 'coregate',
    baseline: true,
    measurement: pair.baseline,
  });
  ctx.results.compareCpu(row, bearerRow, {
    name: `accounts CPU µs/req, DPoP-bound vs bearer (${kind})`,
    max: MAX_CPU_RATIO,
    label: 'of the bearer read',
  });
}
