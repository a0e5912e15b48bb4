/**
 * Mutual TLS (RFC 8705) with certificates made by the test (openssl): coregate's own HTTPS
 * asking for client certificates (COREGATE_TLS_CLIENT_CA_FILE), `tls_client_auth` by subject
 * DN, `self_signed_tls_client_auth` by the certificate registered in the JWKS, certificate-bound
 * tokens (`cnf["x5t#S256"]`) refused at the gateway without that certificate; and a proxy's
 * certificate header, believed only from a trusted proxy.
 */
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { Agent, fetch as undiciFetch } from 'undici';
import { pgliteBackend } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { freePort } from '../../support/free-port.js';
import { mutualTlsFiles, selfSignedCertificate, type MutualTlsFiles, type TestCertificate } from '../../support/tls.js';

function thumbprint(pem: string): string {
  return createHash('sha256').update(new X509Certificate(pem).raw).digest('base64url');
}

/** A JWKS holding a certificate: its public key as a JWK, the certificate in x5c (RFC 7517 §4.7). */
function certificateJwks(pem: string) {
  const certificate = new X509Certificate(pem);
  return { keys: [{ ...certificate.publicKey.export({ format: 'jwk' }), x5c: [certificate.raw.toString('base64')] }] };
}

describe('mutual TLS: coregate terminating TLS', () => {
  let files: MutualTlsFiles;
  let selfSigned: TestCertificate;
  let h: Harness;
  let url: string;
  let ca: string;
  const agents: Agent[] = [];

  function agent(cert?: { certFile: string; keyFile: string }): Agent {
    const made = new Agent({
      connect: { ca, ...(cert ? { cert: readFileSync(cert.certFile), key: readFileSync(cert.keyFile) } : {}) },
    });
    agents.push(made);
    return made;
  }
  const caIssued = () => ({ certFile: files.clientCertFile, keyFile: files.clientKeyFile });
  const ownCertificate = () => ({ certFile: selfSigned.certFile, keyFile: selfSigned.keyFile });

  before(async () => {
    files = mutualTlsFiles();
    selfSigned = selfSignedCertificate('acme-self-signed');
    ca = readFileSync(files.caFile, 'utf8');
    const port = await freePort();
    url = `https://127.0.0.1:${port}`;
    h = await createHarness(pgliteBackend, {
      env: {
        COREGATE_ISSUER: url,
        COREGATE_TLS_CERT_FILE: files.serverCertFile,
        COREGATE_TLS_KEY_FILE: files.serverKeyFile,
        COREGATE_TLS_CLIENT_CA_FILE: files.caFile,
      },
      app: {
        tls: {
          cert: readFileSync(files.serverCertFile),
          key: readFileSync(files.serverKeyFile),
          clientCa: readFileSync(files.caFile),
        },
      },
    });
    await h.app.listen({ port, host: '127.0.0.1' });
  });
  after(async () => {
    await h?.close();
    await Promise.all(agents.map((each) => each.close()));
    files?.remove();
    selfSigned?.remove();
  });

  async function token(
    clientId: string,
    dispatcher: Agent,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await undiciFetch(`${url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId }).toString(),
      dispatcher,
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  /** The gateway's status; `messages` collects each 401's envelope message. */
  async function gateway(accessToken: string, dispatcher: Agent, messages: string[] = []): Promise<number> {
    const response = await undiciFetch(`${url}/core/accounts?customerId=nobody`, {
      headers: { authorization: `Bearer ${accessToken}` },
      dispatcher,
    });
    const body = (await response.json()) as { message?: string };
    if (response.status === 401) messages.push(String(body.message));
    return response.status;
  }

  it('announces the certificate methods and certificate-bound tokens', async () => {
    const metadata = (await (
      await undiciFetch(`${url}/.well-known/oauth-authorization-server`, { dispatcher: agent() })
    ).json()) as Record<string, unknown>;
    assert.ok((metadata['token_endpoint_auth_methods_supported'] as string[]).includes('tls_client_auth'));
    assert.ok((metadata['token_endpoint_auth_methods_supported'] as string[]).includes('self_signed_tls_client_auth'));
    assert.equal(metadata['tls_client_certificate_bound_access_tokens'], true);
  });

  it('tls_client_auth: the CA-issued certificate with the registered subject DN; nothing else', async () => {
    const { client } = await h.services.clientRegistry.create({
      name: 'mtls',
      authMethod: 'tls_client_auth',
      tlsSubjectDn: 'CN=coregate',
    });
    const issued = await token(client.id, agent(caIssued()));
    assert.equal(issued.status, 200, JSON.stringify(issued.body));
    assert.equal(issued.body['token_type'], 'Bearer');
    assert.equal((await token(client.id, agent())).body['error'], 'invalid_client', 'no certificate');
    assert.equal(
      (await token(client.id, agent(ownCertificate()))).body['error'],
      'invalid_client',
      'a certificate the CA did not issue',
    );
    const { client: other } = await h.services.clientRegistry.create({
      name: 'mtls other',
      authMethod: 'tls_client_auth',
      tlsSubjectDn: 'CN=someone else',
    });
    assert.equal((await token(other.id, agent(caIssued()))).body['error'], 'invalid_client', 'another subject');
  });

  it('self_signed_tls_client_auth: exactly the certificate in the registered JWKS', async () => {
    const { client } = await h.services.clientRegistry.create({
      name: 'self-signed',
      authMethod: 'self_signed_tls_client_auth',
      jwks: certificateJwks(selfSigned.cert),
    });
    assert.equal((await token(client.id, agent(ownCertificate()))).status, 200);
    assert.equal((await token(client.id, agent(caIssued()))).body['error'], 'invalid_client', 'another certificate');
  });

  it('certificate-bound tokens: cnf x5t#S256, admitted with the certificate, refused without it or with another', async () => {
    const { client } = await h.services.clientRegistry.create({
      name: 'bound',
      authMethod: 'tls_client_auth',
      tlsSubjectDn: 'CN=coregate',
      requireBoundTokens: true,
    });
    const issued = await token(client.id, agent(caIssued()));
    assert.equal(issued.status, 200, JSON.stringify(issued.body));
    const accessToken = String(issued.body['access_token']);
    assert.equal(
      (decodeJwt(accessToken)['cnf'] as Record<string, string>)['x5t#S256'],
      thumbprint(readFileSync(files.clientCertFile, 'utf8')),
    );
    assert.notEqual(await gateway(accessToken, agent(caIssued())), 401, 'the same certificate');
    const told: string[] = [];
    assert.equal(await gateway(accessToken, agent(), told), 401, 'no certificate');
    // The holder is told the token is bound and how to present it (RFC 8705 §3).
    assert.match(told[0] ?? '', /bound to a client certificate: send it over mutual TLS/);
    assert.equal(await gateway(accessToken, agent(ownCertificate())), 401, 'another certificate');
  });
});

describe('mutual TLS: a proxy passing the client certificate in a header', () => {
  let files: MutualTlsFiles;
  let h: Harness;
  before(async () => {
    files = mutualTlsFiles();
    h = await createHarness(pgliteBackend, {
      env: {
        COREGATE_TLS_CLIENT_CERT_HEADER: 'X-Client-Cert',
        COREGATE_TRUST_PROXY: '127.0.0.1',
        COREGATE_TLS_CLIENT_CA_FILE: files.caFile,
      },
    });
    // The certificates were made now: their validity is read on the harness's clock.
    h.clock.set(new Date());
  });
  after(async () => {
    await h?.close();
    files?.remove();
  });

  /** The token endpoint from the trusted proxy, with the certificate header's value exactly as given. */
  function tokenViaRaw(clientId: string, headerValue: string) {
    return h.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      remoteAddress: '127.0.0.1',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-client-cert': headerValue },
      payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId }).toString(),
    });
  }

  function tokenVia(clientId: string, remoteAddress: string, certificate?: string | string[]) {
    return h.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      remoteAddress,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(certificate === undefined
          ? {}
          : {
              'x-client-cert': Array.isArray(certificate)
                ? certificate.map((pem) => encodeURIComponent(pem))
                : encodeURIComponent(certificate),
            }),
      },
      payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId }).toString(),
    });
  }

  it('believes the header from the trusted proxy only, and binds the token to that certificate', async () => {
    const { client } = await h.services.clientRegistry.create({
      name: 'behind proxy',
      authMethod: 'tls_client_auth',
      tlsSubjectDn: 'CN=coregate',
      requireBoundTokens: true,
    });
    const pem = readFileSync(files.clientCertFile, 'utf8');
    const fromProxy = await tokenVia(client.id, '127.0.0.1', pem);
    assert.equal(fromProxy.statusCode, 200, fromProxy.body);
    assert.equal(
      (decodeJwt(fromProxy.json<{ access_token: string }>().access_token)['cnf'] as Record<string, string>)['x5t#S256'],
      thumbprint(pem),
    );
    const fromElsewhere = await tokenVia(client.id, '198.51.100.7', pem);
    assert.equal(
      fromElsewhere.json<{ error: string }>().error,
      'invalid_client',
      'the same header from an untrusted address',
    );
    assert.equal(
      (await tokenVia(client.id, '127.0.0.1')).json<{ error: string }>().error,
      'invalid_client',
      'no certificate',
    );
    const selfSigned = selfSignedCertificate('CN-coregate-imitation');
    try {
      const { client: imitated } = await h.services.clientRegistry.create({
        name: 'imitated',
        authMethod: 'tls_client_auth',
        tlsSubjectDn: 'CN=CN-coregate-imitation',
      });
      assert.equal(
        (await tokenVia(imitated.id, '127.0.0.1', selfSigned.cert)).json<{ error: string }>().error,
        'invalid_client',
        'a certificate the CA did not issue',
      );
    } finally {
      selfSigned.remove();
    }
  });

  it('refuses more than one certificate header (a victim’s certificate written before the proxy’s): 400 at the token endpoint and the gateway', async () => {
    const { client } = await h.services.clientRegistry.create({
      name: 'victim',
      authMethod: 'tls_client_auth',
      tlsSubjectDn: 'CN=coregate',
      requireBoundTokens: true,
    });
    const victim = readFileSync(files.clientCertFile, 'utf8');
    const attacker = selfSignedCertificate('attacker');
    try {
      const refused = await tokenVia(client.id, '127.0.0.1', [victim, attacker.cert]);
      assert.equal(refused.statusCode, 400, refused.body);
      assert.equal(refused.json<{ error: string }>().error, 'invalid_request');
      assert.match(refused.json<{ error_description: string }>().error_description, /more than one x-client-cert/i);

      // One header line holding both (a proxy folding repeated lines, or two certificates run together).
      const der = (pem: string) => new X509Certificate(pem).raw;
      const folded: Array<[string, string]> = [
        ['folded with a comma', `${encodeURIComponent(victim)},${encodeURIComponent(attacker.cert)}`],
        ['folded with a comma and a space', `${encodeURIComponent(attacker.cert)}, ${encodeURIComponent(victim)}`],
        ['two PEM blocks run together', encodeURIComponent(`${victim.trim()}\n${attacker.cert}`)],
        ['two DER certificates run together', Buffer.concat([der(victim), der(attacker.cert)]).toString('base64')],
        ['base64 DER folded', `${der(victim).toString('base64')},${der(attacker.cert).toString('base64')}`],
      ];
      for (const [why, value] of folded) {
        const refusedLine = await tokenViaRaw(client.id, value);
        assert.equal(refusedLine.statusCode, 400, `${why}: ${refusedLine.body}`);
        assert.equal(refusedLine.json<{ error: string }>().error, 'invalid_request', why);
        assert.match(
          refusedLine.json<{ error_description: string }>().error_description,
          /more than one x-client-cert/i,
          why,
        );
      }
      const oneDer = await tokenViaRaw(client.id, der(victim).toString('base64'));
      assert.equal(oneDer.statusCode, 200, `one base64 DER certificate: ${oneDer.body}`);

      const issued = await tokenVia(client.id, '127.0.0.1', victim);
      assert.equal(issued.statusCode, 200, issued.body);
      const accessToken = issued.json<{ access_token: string }>().access_token;
      const atGateway = await h.app.inject({
        method: 'GET',
        url: '/core/accounts?customerId=nobody',
        remoteAddress: '127.0.0.1',
        headers: {
          authorization: `Bearer ${accessToken}`,
          'x-client-cert': [encodeURIComponent(victim), encodeURIComponent(attacker.cert)],
        },
      });
      assert.equal(atGateway.statusCode, 400, atGateway.body);
      assert.equal(atGateway.json<{ name: string }>().name, 'BadRequest');
      assert.match(atGateway.body, /x-client-cert/i);
      const foldedAtGateway = await h.app.inject({
        method: 'GET',
        url: '/core/accounts?customerId=nobody',
        remoteAddress: '127.0.0.1',
        headers: {
          authorization: `Bearer ${accessToken}`,
          'x-client-cert': `${encodeURIComponent(victim)},${encodeURIComponent(attacker.cert)}`,
        },
      });
      assert.equal(foldedAtGateway.statusCode, 400, foldedAtGateway.body);
      assert.match(foldedAtGateway.body, /x-client-cert/i);
    } finally {
      attacker.remove();
    }
  });
});
