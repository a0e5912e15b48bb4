#!/usr/bin/env node
// `npm run openapi`: writes docs/openapi.json, the OpenAPI document generated from the
// application's route schemas (dist/src/http/openapi-document.js; the script builds first).
// `--check` writes nothing and exits 1 if the committed file differs.
import { readFileSync, writeFileSync } from 'node:fs';
import { PACKAGE_INFO } from '../dist/src/config/package-info.js';
import { formatOpenApiDocument, openApiDocument } from '../dist/src/http/openapi-document.js';

const target = new URL('../docs/openapi.json', import.meta.url);
const generated = formatOpenApiDocument(await openApiDocument(PACKAGE_INFO.version));

if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(target, 'utf8');
  } catch {
    // missing: differs
  }
  if (committed !== generated) {
    console.error('docs/openapi.json is out of date: run `npm run openapi` and commit the result');
    process.exit(1);
  }
  console.error('docs/openapi.json is up to date');
} else {
  writeFileSync(target, generated);
  console.error(`wrote docs/openapi.json (${Object.keys(JSON.parse(generated).paths ?? {}).length} paths)`);
}
