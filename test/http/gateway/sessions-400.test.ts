/**
 * `POST /core/sessions` → 400 and 413 (docs/behaviour.md#registration-validation,
 * docs/behaviour.md#body-limit): an invalid body names each bad field in `data.errors` as
 * `{path, message}`, never repeats what was sent (it may be personal data), reaches no core and
 * stores nothing; a body that is not JSON or has another content type is a 400; a body over
 * 64 KiB is a 413.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { BACKENDS } from '../../support/backends.js';
import { createHarness, type Harness } from '../../support/harness.js';
import {
  assertBadRequest,
  assertError,
  assertSuccess,
  associationCount,
  formA,
  formB,
  PAYLOAD_TOO_LARGE,
  postSession,
} from './gateway-requests.js';

const VALID = formA('c-400');
const DEMO = VALID.demographics;

/** [why, body, the paths data.errors must name]. */
const INVALID_BODIES: Array<[string, unknown, string[]]> = [
  ['empty object', {}, ['/registration', '/']],
  ['registration missing', { demographics: DEMO }, ['/registration']],
  ['registration not an object', { demographics: DEMO, registration: 'c-400' }, ['/registration']],
  ['registration an array', { demographics: DEMO, registration: [] }, ['/registration']],
  ['customerId missing', { demographics: DEMO, registration: {} }, ['/registration/customerId']],
  ['customerId a number', { demographics: DEMO, registration: { customerId: 42 } }, ['/registration/customerId']],
  ['customerId null', { demographics: DEMO, registration: { customerId: null } }, ['/registration/customerId']],
  ['customerId empty', { demographics: DEMO, registration: { customerId: '' } }, ['/registration/customerId']],
  ['customerId blank', { demographics: DEMO, registration: { customerId: '   ' } }, ['/registration/customerId']],
  [
    'customerId with a space inside',
    { demographics: DEMO, registration: { customerId: 'a b' } },
    ['/registration/customerId'],
  ],
  [
    'customerId with a control character',
    { demographics: DEMO, registration: { customerId: 'a\u0000b' } },
    ['/registration/customerId'],
  ],
  [
    'customerId not ASCII',
    { demographics: DEMO, registration: { customerId: 'kündin' } },
    ['/registration/customerId'],
  ],
  [
    'customerId over 128 characters',
    { demographics: DEMO, registration: { customerId: 'x'.repeat(129) } },
    ['/registration/customerId'],
  ],
  [
    'unknown field in registration',
    { demographics: DEMO, registration: { customerId: 'c', platform: 'p' } },
    ['/registration/platform'],
  ],
  ['neither demographics nor customer', { registration: { customerId: 'c' } }, ['/']],
  ['both demographics and customer', { ...VALID, customer: { customerKey: 'C-1001' } }, ['/']],
  ['unknown top-level field', { ...VALID, extra: true }, ['/extra']],
  ['demographics not an object', { demographics: '123-45-6789', registration: { customerId: 'c' } }, ['/demographics']],
  ['demographics null', { demographics: null, registration: { customerId: 'c' } }, ['/demographics']],
  [
    'demographics empty',
    { demographics: {}, registration: { customerId: 'c' } },
    ['/demographics/socialSecurityNumber', '/demographics/accountNumber', '/demographics/birthDay'],
  ],
  [
    'SSN missing',
    { ...VALID, demographics: { ...DEMO, socialSecurityNumber: undefined } },
    ['/demographics/socialSecurityNumber'],
  ],
  [
    'SSN a number',
    { ...VALID, demographics: { ...DEMO, socialSecurityNumber: 123456789 } },
    ['/demographics/socialSecurityNumber'],
  ],
  [
    'SSN 8 digits',
    { ...VALID, demographics: { ...DEMO, socialSecurityNumber: '12345678' } },
    ['/demographics/socialSecurityNumber'],
  ],
  [
    'SSN 10 digits',
    { ...VALID, demographics: { ...DEMO, socialSecurityNumber: '123-45-67890' } },
    ['/demographics/socialSecurityNumber'],
  ],
  [
    'SSN with letters',
    { ...VALID, demographics: { ...DEMO, socialSecurityNumber: '123-45-678X' } },
    ['/demographics/socialSecurityNumber'],
  ],
  [
    'SSN with blanks inside',
    { ...VALID, demographics: { ...DEMO, socialSecurityNumber: '123 45 6789' } },
    ['/demographics/socialSecurityNumber'],
  ],
  [
    'SSN empty',
    { ...VALID, demographics: { ...DEMO, socialSecurityNumber: '' } },
    ['/demographics/socialSecurityNumber'],
  ],
  [
    'account number missing',
    { ...VALID, demographics: { ...DEMO, accountNumber: undefined } },
    ['/demographics/accountNumber'],
  ],
  ['account number empty', { ...VALID, demographics: { ...DEMO, accountNumber: '' } }, ['/demographics/accountNumber']],
  [
    'account number a number',
    { ...VALID, demographics: { ...DEMO, accountNumber: 70001234 } },
    ['/demographics/accountNumber'],
  ],
  [
    'account number with symbols',
    { ...VALID, demographics: { ...DEMO, accountNumber: '7000;1234' } },
    ['/demographics/accountNumber'],
  ],
  [
    'account number over 34 characters',
    { ...VALID, demographics: { ...DEMO, accountNumber: '7'.repeat(35) } },
    ['/demographics/accountNumber'],
  ],
  ['birthDay missing', { ...VALID, demographics: { ...DEMO, birthDay: undefined } }, ['/demographics/birthDay']],
  [
    'birthDay with slashes the other way',
    { ...VALID, demographics: { ...DEMO, birthDay: '1980/04/12' } },
    ['/demographics/birthDay'],
  ],
  ['birthDay DD.MM.YYYY', { ...VALID, demographics: { ...DEMO, birthDay: '12.04.1980' } }, ['/demographics/birthDay']],
  [
    'birthDay with a time',
    { ...VALID, demographics: { ...DEMO, birthDay: '1980-04-12T00:00:00' } },
    ['/demographics/birthDay'],
  ],
  [
    'birthDay not a real date (ISO)',
    { ...VALID, demographics: { ...DEMO, birthDay: '1981-02-29' } },
    ['/demographics/birthDay'],
  ],
  [
    'birthDay not a real date (US)',
    { ...VALID, demographics: { ...DEMO, birthDay: '02/30/1980' } },
    ['/demographics/birthDay'],
  ],
  [
    'birthDay month 13 (US)',
    { ...VALID, demographics: { ...DEMO, birthDay: '13/01/1980' } },
    ['/demographics/birthDay'],
  ],
  [
    'birthDay in the future',
    { ...VALID, demographics: { ...DEMO, birthDay: '2030-01-01' } },
    ['/demographics/birthDay'],
  ],
  ['birthDay today', { ...VALID, demographics: { ...DEMO, birthDay: '2026-03-01' } }, ['/demographics/birthDay']],
  ['birthDay a number', { ...VALID, demographics: { ...DEMO, birthDay: 19800412 } }, ['/demographics/birthDay']],
  ['unknown field in demographics', { ...VALID, demographics: { ...DEMO, name: 'Ada' } }, ['/demographics/name']],
  [
    'every demographic field bad at once',
    {
      demographics: { socialSecurityNumber: '1', accountNumber: '', birthDay: 'yesterday' },
      registration: { customerId: 'a b' },
    },
    [
      '/demographics/socialSecurityNumber',
      '/demographics/accountNumber',
      '/demographics/birthDay',
      '/registration/customerId',
    ],
  ],
  ['customer not an object', { customer: 'C-1001', registration: { customerId: 'c' } }, ['/customer']],
  ['customerKey missing', { customer: {}, registration: { customerId: 'c' } }, ['/customer/customerKey']],
  [
    'customerKey a number',
    { customer: { customerKey: 1001 }, registration: { customerId: 'c' } },
    ['/customer/customerKey'],
  ],
  [
    'customerKey empty',
    { customer: { customerKey: '' }, registration: { customerId: 'c' } },
    ['/customer/customerKey'],
  ],
  [
    'customerKey with a space',
    { customer: { customerKey: 'C 1001' }, registration: { customerId: 'c' } },
    ['/customer/customerKey'],
  ],
  [
    'customerKey over 128 characters',
    { customer: { customerKey: 'C'.repeat(129) }, registration: { customerId: 'c' } },
    ['/customer/customerKey'],
  ],
  [
    'unknown field in customer',
    { customer: { customerKey: 'C-1001', id: 1 }, registration: { customerId: 'c' } },
    ['/customer/id'],
  ],
  ['a JSON array', [VALID], ['/']],
  ['a JSON string', '"hello"', ['/']],
  ['a JSON number', '42', ['/']],
  ['JSON null', 'null', ['/']],
  ['JSON true', 'true', ['/']],
];

for (const backend of BACKENDS) {
  describe(`POST /core/sessions 400 and 413 (${backend.name})`, { skip: backend.skip }, () => {
    let h: Harness;
    let token: string;
    before(async () => {
      h = await createHarness(backend);
      token = await h.token(await h.client());
    });
    after(() => h?.close());

    /** Sends `body` and checks that nothing reached the core or the database. */
    async function refused(body: unknown, contentType?: string | null) {
      const rows = await associationCount(h);
      const stats = h.services.simulator!.stats();
      const response = await postSession(h, { token, ...(contentType === undefined ? {} : { contentType }) }, body);
      assert.equal(await associationCount(h), rows, 'nothing stored');
      assert.deepEqual(h.services.simulator!.stats(), stats, 'the core was not called');
      return response;
    }

    it('the valid body these cases start from is accepted', async () => {
      assertSuccess(await postSession(h, { token }, VALID));
    });

    it('answers 400 naming each bad field, for every kind of invalid body', async () => {
      for (const [why, body, paths] of INVALID_BODIES) {
        assertBadRequest(await refused(body), paths, why);
      }
    });

    it('never repeats the submitted values in a 400', async () => {
      const secrets = { socialSecurityNumber: '987-65-43210', accountNumber: 'ZZ;99887766', birthDay: '31/12/1999' };
      const response = await refused({ demographics: secrets, registration: { customerId: 'secret customer id' } });
      assertBadRequest(response, [
        '/demographics/socialSecurityNumber',
        '/demographics/accountNumber',
        '/demographics/birthDay',
        '/registration/customerId',
      ]);
      for (const value of [...Object.values(secrets), '9876543210', 'secret customer id']) {
        assert.equal(response.body.includes(value), false, `${value} is not echoed`);
      }
      // A value typed where a field name belongs is not echoed either.
      const misplaced = await refused({ ...VALID, demographics: { ...DEMO, '123-45-6789': true } });
      assert.equal(misplaced.body.includes('123-45-6789'), false, misplaced.body);
      assertError(misplaced, { status: 400, name: 'BadRequest', className: 'bad-request' });
    });

    it('answers 400 to a body that is not JSON', async () => {
      for (const raw of ['{', '{"registration": ', 'registration=c', "{'a': 1}", '{"a": 1}}', '\u0000', ' ']) {
        const response = await refused(raw);
        assertBadRequest(response, ['/'], JSON.stringify(raw));
      }
    });

    it('answers 400 naming the member given twice in one object, never echoing a value typed as a name', async () => {
      const json = JSON.stringify(VALID);
      const cases: Array<[string, string, string]> = [
        [
          'customerId twice',
          json.replace('"customerId":', '"customerId":"first","customerId":'),
          '/registration/customerId',
        ],
        ['registration twice', `${json.slice(0, -1)},"registration":{"customerId":"other"}}`, '/registration'],
        [
          'a name escaped the second time',
          json.replace('"customerId":', '"customerId":"first","\u0063ustomerId":'),
          '/registration/customerId',
        ],
        [
          'a number typed as a name, twice',
          json.replace('"demographics":{', '"demographics":{"123-45-6789":1,"123-45-6789":2,'),
          '/demographics',
        ],
      ];
      for (const [why, raw, path] of cases) {
        const response = await refused(raw);
        assertBadRequest(response, [path], why);
        assert.equal(response.body.includes('123-45-6789'), false, response.body);
      }
    });

    it('answers 400 to an empty body', async () => {
      assertBadRequest(await refused(''), ['/'], 'empty JSON body');
      assertBadRequest(await refused(undefined, null), ['/'], 'no body, no content type');
    });

    it('answers 400 to a content type other than JSON', async () => {
      const json = JSON.stringify(VALID);
      for (const contentType of [
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/xml',
        'text/json',
      ]) {
        const response = await refused(json, contentType);
        assertBadRequest(response, ['/'], contentType); // a JSON Pointer (the body)
      }
      const response = await refused(json, null);
      assertError(response, { status: 400, name: 'BadRequest', className: 'bad-request' }, 'no content type');
    });

    it('accepts JSON with a charset parameter', async () => {
      assertSuccess(
        await postSession(h, { token, contentType: 'application/json; charset=utf-8' }, formB('c-charset')),
      );
    });

    it('answers 413 PayloadTooLarge to a body over 64 KiB, and not to one of exactly 64 KiB', async () => {
      const wrap = (size: number) => {
        const skeleton = JSON.stringify({ ...VALID, padding: '' });
        return JSON.stringify({ ...VALID, padding: 'x'.repeat(size - skeleton.length) });
      };
      const atLimit = wrap(64 * 1024);
      assert.equal(Buffer.byteLength(atLimit), 64 * 1024);
      assertBadRequest(await refused(atLimit), ['/padding'], 'at the limit: parsed, and refused for its unknown field');
      const over = wrap(64 * 1024 + 1);
      const response = await refused(over);
      assertError(response, PAYLOAD_TOO_LARGE, 'one byte over');
      const huge = await refused(JSON.stringify({ ...VALID, padding: 'x'.repeat(1024 * 1024) }));
      assertError(huge, PAYLOAD_TOO_LARGE, '1 MiB');
    });

    it('answers 413 to a chunked body that grows over 64 KiB (no Content-Length to go by)', async () => {
      await h.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = h.app.server.address() as AddressInfo;
      const rows = await associationCount(h);
      const [status, body] = await new Promise<[number, string]>((resolve, reject) => {
        const post = request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/core/sessions',
            headers: {
              authorization: `Bearer ${token}`,
              'content-type': 'application/json',
              'transfer-encoding': 'chunked',
            },
          },
          (response) => {
            let text = '';
            response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
            response.on('end', () => resolve([response.statusCode!, text]));
          },
        );
        post.on('error', reject);
        post.write(`{"registration": {"customerId": "chunked"}, "padding": "`);
        for (let chunk = 0; chunk < 80; chunk += 1) post.write('x'.repeat(1024));
        post.end('"}');
      });
      assert.equal(status, 413, body);
      assert.deepEqual(JSON.parse(body), {
        name: 'PayloadTooLarge',
        className: 'payload-too-large',
        message: JSON.parse(body).message,
        code: 413,
        data: { reason: 'payload_too_large', requestId: JSON.parse(body).data.requestId },
      }); // with its reason and request id
      assert.equal(await associationCount(h), rows);
    });
  });
}
