/** The code examples of docs/integrators.md that tests run as written. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

/** The repository's root (from the compiled `dist/test/support/`). */
export const REPOSITORY_ROOT = new URL('../../../', import.meta.url);

/** The JavaScript between the integrator guide's markers `<!-- snippet:NAME:start -->` and `…:end -->`. */
export function guideSnippet(name: string): string {
  const guide = readFileSync(new URL('docs/integrators.md', REPOSITORY_ROOT), 'utf8');
  const match = new RegExp(
    `<!-- snippet:${name}:start -->\\n\`\`\`js\\n([\\s\\S]*?)\`\`\`\\n<!-- snippet:${name}:end -->`,
  ).exec(guide);
  assert.ok(match, `docs/integrators.md has the ${name} snippet`);
  return match[1]!;
}
