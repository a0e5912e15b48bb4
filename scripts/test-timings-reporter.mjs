// A reporter beside the runner's own (scripts/run-tests.mjs --timings): the wall time each
// test file's top-level tests took, summed per file, slowest first. It is what a maintainer
// reads before moving a test between tiers or making a slow one cheaper.
export default async function* timings(source) {
  const perFile = new Map();
  for await (const event of source) {
    if ((event.type !== 'test:pass' && event.type !== 'test:fail') || event.data.nesting !== 0) continue;
    const file = event.data.file ?? '?';
    perFile.set(file, (perFile.get(file) ?? 0) + (event.data.details?.duration_ms ?? 0));
  }
  const rows = [...perFile].sort((a, b) => b[1] - a[1]);
  yield rows
    .map(([file, ms]) => `${(ms / 1000).toFixed(1).padStart(7)} s  ${file.replace(/^.*\/dist\//, '')}`)
    .join('\n');
  yield '\n';
}
