import { PGlite } from '@electric-sql/pglite';
const mb = (n) => (n / 1048576).toFixed(0);
const db = await PGlite.create({
  dataDir: process.argv[2],
  startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'],
});
for (let i = 0; i < 2000; i++) await db.query('select * from t where k = $1', ['k' + (i % 1000)]);
global.gc();
const m = process.memoryUsage();
console.log(process.execArgv.join(' '), 'rss', mb(m.rss), 'heapTotal', mb(m.heapTotal), 'external', mb(m.external));
const smaps = (await import('node:fs')).readFileSync('/proc/self/smaps_rollup', 'utf8');
console.log(
  smaps
    .split('\n')
    .filter((l) => /Rss|Anonymous|Private_Dirty|Shared_Clean/.test(l))
    .join(' | '),
);
process.exit(0);
