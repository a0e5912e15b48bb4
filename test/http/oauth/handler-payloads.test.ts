/**
 * The OAuth handlers return their payload; they do not `return reply.send(...)`. An async
 * handler that returns the reply hands Fastify a thenable: `Reply.then` then watches the
 * response stream for its end (end-of-stream, a listener per event), about 1% of a token
 * request's CPU for nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { QUICKEST_BACKEND } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { assertIssued, postRevoke, postToken } from './oauth-requests.js';

describe('OAuth handlers answer with their payload, not a thenable reply', () => {
  let h: Harness;
  const thenCalls: string[] = [];

  before(async () => {
    h = await createHarness(QUICKEST_BACKEND, {
      routes: (app) => {
        app.addHook('onRequest', (request, reply, done) => {
          const then = reply.then.bind(reply);
          reply.then = (fulfilled, rejected) => {
            thenCalls.push(request.url);
            return then(fulfilled, rejected);
          };
          done();
        });
      },
    });
  });
  after(() => h?.close());

  it('POST /oauth2/token and POST /oauth2/revoke', async () => {
    const client = await h.client();
    const issued = assertIssued(await postToken(h, { client, body: { grant_type: 'client_credentials' } }), 'token');
    const revoked = await postRevoke(h, { client, body: { token: issued.access_token } });
    assert.equal(revoked.statusCode, 200, revoked.body);
    assert.deepEqual(revoked.json(), {});
    assert.deepEqual(thenCalls, []);
  });
});
