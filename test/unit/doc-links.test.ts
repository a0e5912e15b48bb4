/**
 * Every link to a heading of the project's own pages resolves: a code comment's
 * `docs/behaviour.md#renewal`, and a Markdown page's `[…](operations.md#settings)` or
 * `[…](#check-order)`, name a heading that exists, by GitHub's anchor rules. Comments cite
 * docs/ pages instead of documents a clone does not have, so those citations must stay true.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The Markdown pages whose headings are cited, and whose own links are checked. */
const PAGES = [
  'README.md',
  'packages/client/README.md',
  ...['docs', 'docs/benchmarks'].flatMap((dir) =>
    readdirSync(join(ROOT, dir))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `${dir}/${name}`),
  ),
];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (statSync(join(ROOT, path)).isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs|js)$/.test(name) ? [path] : [];
  });
}

/** A heading's anchor as GitHub makes it: the text lowercased, punctuation dropped, spaces as hyphens. */
function githubAnchor(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link shows its text
    .replace(/`/g, '');
  return text
    .toLowerCase()
    .trim()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown page; a repeated heading gets `-1`, `-2`, … as on GitHub. */
function anchorsOf(page: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of readFileSync(join(ROOT, page), 'utf8').split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = githubAnchor(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

const anchorCache = new Map<string, Set<string>>();
function anchors(page: string): Set<string> {
  let found = anchorCache.get(page);
  if (!found) anchorCache.set(page, (found = anchorsOf(page)));
  return found;
}

interface Link {
  from: string;
  page: string;
  anchor: string;
}

/** `docs/<page>.md#<anchor>` in source files (comments and strings), and the README's `README.md#…`. */
function sourceLinks(file: string): Link[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/\b((?:docs\/[\w-]+|(?:packages\/client\/)?README)\.md)#([\w-]+)/g)].map((match) => ({
    from: file,
    page: match[1]!,
    anchor: match[2]!,
  }));
}

/** Relative Markdown links with an anchor, `](page.md#anchor)` or `](#anchor)`, outside code fences. */
function markdownLinks(page: string): Link[] {
  const text = readFileSync(join(ROOT, page), 'utf8').replace(/^\s*```[\s\S]*?^\s*```/gm, '');
  return [...text.matchAll(/\]\(([^)\s#]*)#([^)\s]+)\)/g)]
    .filter((match) => !/^[a-z]+:/i.test(match[1]!))
    .map((match) => ({
      from: page,
      page: match[1] ? relative(ROOT, normalize(join(ROOT, dirname(page), match[1]))) : page,
      anchor: match[2]!,
    }));
}

describe('documentation links', () => {
  it('makes anchors the way GitHub does', () => {
    assert.equal(
      githubAnchor("3. `GET /v1/accounts` — list the session's accounts"),
      '3-get-v1accounts--list-the-sessions-accounts',
    );
    assert.equal(githubAnchor('Data file (`--data FILE`)'), 'data-file---data-file');
    assert.equal(
      githubAnchor('Redis (shared rate limits, `COREGATE_REDIS_URL`)'),
      'redis-shared-rate-limits-coregate_redis_url',
    );
  });

  it('every docs/…#anchor in src/, test/ and scripts/ names a heading that exists', () => {
    const links = ['src', 'test', 'scripts'].flatMap(sourceFiles).flatMap(sourceLinks);
    assert.ok(
      links.some((link) => link.page === 'docs/behaviour.md'),
      'expected comments citing docs/behaviour.md',
    );
    const broken = links.filter((link) => !PAGES.includes(link.page) || !anchors(link.page).has(link.anchor));
    assert.deepEqual(
      broken.map((link) => `${link.from}: ${link.page}#${link.anchor}`),
      [],
    );
  });

  it('every anchored link between the Markdown pages names a heading that exists', () => {
    const links = PAGES.flatMap(markdownLinks).filter((link) => link.page.endsWith('.md'));
    const broken = links.filter((link) => !PAGES.includes(link.page) || !anchors(link.page).has(link.anchor));
    assert.deepEqual(
      broken.map((link) => `${link.from}: ${link.page}#${link.anchor}`),
      [],
    );
  });
});
