#!/usr/bin/env node
// Prints the configuration table generated from the settings schema (src/config/schema.ts,
// compiled to dist/; `npm run config-table` builds first and writes it into the README).
// `--write` replaces the table between the README's config-table markers; `--check` writes
// nothing and exits 1 if the README's table differs from the schema.
import { readFileSync, writeFileSync } from 'node:fs';
import { configTable, envExample, withConfigTable } from '../dist/src/config/settings-table.js';

const readmeFile = new URL('../README.md', import.meta.url);
const envExampleFile = new URL('../.env.example', import.meta.url);

if (process.argv.includes('--write') || process.argv.includes('--check')) {
  const readme = readFileSync(readmeFile, 'utf8');
  const generated = withConfigTable(readme);
  if (process.argv.includes('--check')) {
    if (generated !== readme) {
      console.error("README.md's configuration table is out of date: run `npm run config-table` and commit the result");
      process.exit(1);
    }
    console.error("README.md's configuration table is up to date");
  } else {
    writeFileSync(readmeFile, generated);
    writeFileSync(envExampleFile, envExample());
    console.error('wrote the configuration table into README.md and .env.example');
  }
} else {
  process.stdout.write(configTable());
}
