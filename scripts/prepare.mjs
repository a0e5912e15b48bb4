#!/usr/bin/env node
// `prepare`, which npm runs after `npm install` and `npm ci`: compiles what `bin/coregate` runs.
// A development install compiles everything `npm run build` does (the client package, the server
// and the tests). A production install (`npm ci --omit=dev`, or NODE_ENV=production) has no
// devDependencies, which the tests import: it compiles the server alone (tsconfig.server.json), and
// the client package the CLI's import command uses.
// The compiler and the types the server needs are dependencies for that reason.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const { devDependencies = {} } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compile = (project) => execFileSync(process.execPath, [tsc, '-p', project], { cwd: root, stdio: 'inherit' });

const development = Object.keys(devDependencies).every((name) =>
  existsSync(join(root, 'node_modules', name, 'package.json')),
);
if (development) {
  compile('packages/client/tsconfig.json');
  compile('tsconfig.json');
  // The embedded database's bare cluster, made once here rather than on each data dir's first
  // start (src/adapters/store/pglite-cluster-template.ts). A failure only costs first starts time.
  try {
    execFileSync(process.execPath, ['dist/src/adapters/store/pglite-cluster-template.js', '--make'], {
      cwd: root,
      stdio: 'inherit',
    });
  } catch {
    console.error('coregate: could not make the embedded database template; first starts will make their own');
  }
} else {
  // `coregate sessions import` is a client of the public API through @coregate/client (a workspace).
  compile('packages/client/tsconfig.json');
  compile('tsconfig.server.json');
  console.error(
    'coregate: devDependencies are not installed: compiled the server only (bin/coregate); `npm ci` installs and compiles the tests too',
  );
}
