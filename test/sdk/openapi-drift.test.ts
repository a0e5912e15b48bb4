/**
 * The client's types cannot drift from the server: the field lists its types derive
 * from (`ACCOUNT_RECORD_FIELDS`, the registration body's parts) are compared with
 * `docs/openapi.json`, the document generated from the route schemas. The account
 * record is found by walking the `/core/accounts` 200 response, not by a component
 * name, so renaming components does not break the test while changing fields does.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  ACCOUNT_RECORD_FIELDS,
  CUSTOMER_REFERENCE_FIELDS,
  CUSTOMER_STATUS_FIELDS,
  DEMOGRAPHICS_FIELDS,
  REGISTRATION_FIELDS,
  REGISTRATION_RESULT_FIELDS,
  type FieldKind,
} from '@coregate/client';

type Schema = Record<string, unknown>;
const document = JSON.parse(readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8')) as Schema;

/** Follows `$ref`s (JSON pointers into the document) until a schema without one. */
function resolve(schema: unknown): Schema {
  let current = schema as Schema;
  for (let hops = 0; typeof current?.['$ref'] === 'string'; hops++) {
    assert.ok(hops < 20, 'a $ref cycle');
    const pointer = current['$ref']
      .replace(/^#\//, '')
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
    current = pointer.reduce<unknown>((node, part) => (node as Schema)[part], document) as Schema;
    assert.ok(current, `unresolved ${pointer.join('/')}`);
  }
  return current;
}

function at(schema: unknown, ...path: string[]): Schema {
  return path.reduce<Schema>((node, part) => {
    const next = resolve(node)[part];
    assert.ok(next !== undefined, `docs/openapi.json has no ${path.join('.')}`);
    return next as Schema;
  }, schema as Schema);
}

/** `where`: 'request', or the status of a response. */
function jsonBody(operation: Schema, where: string): Schema {
  const holder = where === 'request' ? at(operation, 'requestBody') : at(operation, 'responses', where);
  return resolve(at(holder, 'content', 'application/json', 'schema'));
}

/** The schema's properties as `{name: type}` ('integer' counts as number), and its required list. */
function fieldsOf(schema: unknown): { fields: Record<string, string>; required: string[] } {
  const object = resolve(schema);
  const properties = (object['properties'] ?? {}) as Record<string, unknown>;
  const fields = Object.fromEntries(
    Object.entries(properties).map(([name, property]) => {
      const type = resolve(property)['type'];
      return [name, type === 'integer' ? 'number' : String(type)];
    }),
  );
  return { fields, required: [...((object['required'] ?? []) as string[])].sort() };
}

function assertSameFields(schema: unknown, expected: Readonly<Record<string, FieldKind>>, what: string): void {
  const { fields, required } = fieldsOf(schema);
  assert.deepEqual(fields, { ...expected }, `${what}: the SDK's field list differs from docs/openapi.json`);
  assert.deepEqual(required, Object.keys(expected).sort(), `${what}: every field is required in docs/openapi.json`);
}

/** The variants of a body that is one of several forms (anyOf/oneOf), or the body itself. */
function variants(schema: Schema): Schema[] {
  const list = (schema['anyOf'] ?? schema['oneOf']) as unknown[] | undefined;
  return list ? list.map(resolve) : [schema];
}

const paths = document['paths'] as Record<string, Schema>;

describe('@coregate/client types match docs/openapi.json', () => {
  it('AccountRecord is the /core/accounts 200 response item, field by field', () => {
    const envelope = jsonBody(at(paths, '/core/accounts', 'get'), '200');
    const items = at(envelope, 'properties', 'data', 'items');
    assertSameFields(items, ACCOUNT_RECORD_FIELDS, 'account record');
  });

  it('registerCustomer sends the POST /core/sessions body: Form A demographics or Form B customer, with registration', () => {
    const forms = variants(jsonBody(at(paths, '/core/sessions', 'post'), 'request'));
    const formA = forms.find((form) => 'demographics' in ((form['properties'] ?? {}) as Schema));
    const formB = forms.find((form) => 'customer' in ((form['properties'] ?? {}) as Schema));
    assert.ok(formA && formB, 'both registration forms are in the document');
    for (const [form, subject] of [
      [formA, 'demographics'],
      [formB, 'customer'],
    ] as const) {
      assert.deepEqual(
        Object.keys(form['properties'] as Schema).sort(),
        [subject, 'registration'].sort(),
        `${subject} form: top-level fields`,
      );
      assertSameFields(at(form, 'properties', 'registration'), REGISTRATION_FIELDS, `${subject} form: registration`);
    }
    assertSameFields(at(formA, 'properties', 'demographics'), DEMOGRAPHICS_FIELDS, 'demographics');
    assertSameFields(at(formB, 'properties', 'customer'), CUSTOMER_REFERENCE_FIELDS, 'customer');
  });

  it('registerCustomer resolves to the POST /core/sessions 200 data', () => {
    const envelope = jsonBody(at(paths, '/core/sessions', 'post'), '200');
    assertSameFields(at(envelope, 'properties', 'data'), REGISTRATION_RESULT_FIELDS, 'registration result');
  });

  it('getCustomer resolves to the GET /core/sessions 200 data', () => {
    const envelope = jsonBody(at(paths, '/core/sessions', 'get'), '200');
    assertSameFields(at(envelope, 'properties', 'data'), CUSTOMER_STATUS_FIELDS, 'customer status');
    assert.deepEqual(resolve(at(envelope, 'properties', 'data', 'properties', 'status'))['enum'], [
      'active',
      'reregistration_required',
    ]);
  });

  it('deregisterCustomer resolves to the DELETE /core/sessions 200 data', () => {
    const envelope = jsonBody(at(paths, '/core/sessions', 'delete'), '200');
    assertSameFields(at(envelope, 'properties', 'data'), { customerId: 'string' }, 'deregistration');
  });
});
