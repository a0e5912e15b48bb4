/** The package's own name and version, read once from package.json (for `--version`, `GET /` and the API document). */
import { readFileSync } from 'node:fs';

// From dist/src/config/ (compiled) the repository root is three levels up.
const PACKAGE_JSON = new URL('../../../package.json', import.meta.url);

function read(): { name: string; version: string } {
  try {
    const parsed = JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { name?: unknown; version?: unknown };
    return {
      name: typeof parsed.name === 'string' ? parsed.name : 'coregate',
      version: typeof parsed.version === 'string' ? parsed.version : '0.0.0',
    };
  } catch {
    return { name: 'coregate', version: '0.0.0' };
  }
}

export const PACKAGE_INFO: Readonly<{ name: string; version: string }> = Object.freeze(read());
