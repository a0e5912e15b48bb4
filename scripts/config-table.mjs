#!/usr/bin/env node
// Prints the configuration table generated from the settings schema (src/config/schema.ts,
// compiled to dist/; `npm run config-table` builds first and writes every table of settings).
// `--write` replaces the tables between their markers (README.md's configuration table,
// docs/operations.md's settings by concern) and writes .env.example; `--check` writes nothing
// and exits 1 if one of the tables differs from the schema.
import { readFileSync, writeFileSync } from 'node:fs';
import {
  configTable,
  envExample,
  OPERATIONS_SETTINGS_TABLE,
  README_CONFIG_TABLE,
  withGeneratedBlock,
} from '../dist/src/config/settings-table.js';

const pages = [
  ['README.md', README_CONFIG_TABLE],
  ['docs/operations.md', OPERATIONS_SETTINGS_TABLE],
];
const envExampleFile = new URL('../.env.example', import.meta.url);

if (process.argv.includes('--write') || process.argv.includes('--check')) {
  let stale = false;
  for (const [page, block] of pages) {
    const file = new URL(`../${page}`, import.meta.url);
    const text = readFileSync(file, 'utf8');
    const generated = withGeneratedBlock(text, block);
    if (process.argv.includes('--check')) {
      if (generated !== text) {
        console.error(`${page}'s table of settings is out of date: run \`npm run config-table\` and commit the result`);
        stale = true;
      }
    } else {
      writeFileSync(file, generated);
    }
  }
  if (process.argv.includes('--check')) {
    if (stale) process.exit(1);
    console.error('the tables of settings are up to date');
  } else {
    writeFileSync(envExampleFile, envExample());
    console.error('wrote the tables of settings into README.md and docs/operations.md, and .env.example');
  }
} else {
  process.stdout.write(configTable());
}
