/**
 * `@coregate/client` packed as npm publishes it, and the environment a nested npm runs in: shared
 * by the tests that install the tarball into a project of its own.
 */
import { execFile } from 'node:child_process';
import { cpSync, symlinkSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const CLIENT_PACKAGE_DIR = join(ROOT, 'packages', 'client');

/** The test runner's environment without npm's variables (`npm_config_*`…), which a nested npm would take for its own. */
export function npmEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
}

export interface PackedClient {
  /** Absolute path of the tarball. */
  readonly tarball: string;
  /** Paths inside the tarball, relative to its `package/`. */
  readonly files: readonly string[];
}

/**
 * `npm pack` of a copy of packages/client without its dist/: the package's `prepack` script is
 * seen to build it, and other test files importing packages/client/dist never read a file being
 * rewritten. The copy borrows this repository's node_modules for the compiler and types.
 */
export async function packClient(work: string): Promise<PackedClient> {
  const source = join(work, 'client');
  cpSync(CLIENT_PACKAGE_DIR, source, { recursive: true, filter: (path) => !/\/(dist|node_modules)$/.test(path) });
  symlinkSync(join(ROOT, 'node_modules'), join(source, 'node_modules'));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work], {
    cwd: source,
    env: { ...npmEnv(), PATH: `${join(ROOT, 'node_modules', '.bin')}${delimiter}${process.env['PATH'] ?? ''}` },
    maxBuffer: 8 * 1024 * 1024,
  });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{
    readonly filename: string;
    readonly files: ReadonlyArray<{ readonly path: string }>;
  }>;
  if (!packed) throw new Error(`npm pack printed no package: ${stdout}`);
  return { tarball: join(work, packed.filename), files: packed.files.map((file) => file.path) };
}
