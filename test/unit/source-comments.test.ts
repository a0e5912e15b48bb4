/**
 * Source comments carry no benchmark figures: a figure in a comment is true of one machine on
 * one day and rots while the code around it stays. A comment names the trade in words and
 * points to docs/benchmarks.md, where every figure comes from a run that says which.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Microseconds, a ratio (`1.09×`, `0.900x`), a rate, or a percentage. */
const FIGURE = /\d[\d.,]*\s?(?:µs|×|req\/s)|\b\d+\.\d+x\b|\d\s?%/;

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (statSync(join(ROOT, path)).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** The comment text of a line: the whole line inside a block comment or after `//`, else nothing. */
function commentOf(line: string): string | undefined {
  const trimmed = line.trimStart();
  if (trimmed.startsWith('*') || trimmed.startsWith('/*') || trimmed.startsWith('//')) return trimmed;
  const trailing = line.indexOf(' // ');
  return trailing === -1 ? undefined : line.slice(trailing);
}

describe('source comments', () => {
  it('quote no benchmark figures (µs, ×, req/s, percentages): those live in docs/benchmarks.md', () => {
    const found = sourceFiles('src').flatMap((path) =>
      readFileSync(join(ROOT, path), 'utf8')
        .split('\n')
        .flatMap((line, index) => {
          const comment = commentOf(line);
          return comment !== undefined && FIGURE.test(comment) ? [`${path}:${index + 1}: ${comment.trim()}`] : [];
        }),
    );
    assert.deepEqual(found, []);
  });

  it('the check finds a figure where one is written', () => {
    assert.ok(FIGURE.test(commentOf(' * measured 1.09× the CPU') ?? ''));
    assert.ok(FIGURE.test(commentOf('  // ~10 µs per call') ?? ''));
    assert.ok(FIGURE.test(commentOf('const x = 1; // 3% of a request') ?? ''));
    assert.equal(commentOf("const percent = '50 %';"), undefined);
  });
});
