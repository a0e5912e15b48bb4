// A second reporter beside the test runner's own (scripts/run-tests.mjs): it writes the
// run's totals, the numbers of the runner's closing lines ("# pass 851"), as one JSON
// object, so that the run can end with one plain line after the coverage report.
const TOTAL = /^(tests|pass|fail|cancelled|skipped|todo) (\d+)$/;

export default async function* totals(source) {
  const counted = {};
  for await (const event of source) {
    if (event.type !== 'test:diagnostic' || event.data.nesting !== 0) continue;
    const match = TOTAL.exec(event.data.message);
    if (match) counted[match[1]] = Number(match[2]);
  }
  yield `${JSON.stringify(counted)}\n`;
}
