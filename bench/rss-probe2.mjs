import { PGlite } from '@electric-sql/pglite';
const mb = (n) => (n / 1048576).toFixed(0);
const variant = process.argv[3];
const opts = { dataDir: process.argv[2] };
if (variant === 'sb16') opts.startParams = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];
if (variant === 'sb32') opts.startParams = [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB'];
if (variant === 'both') {
  opts.startParams = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];
  opts.initialMemory = 64 * 1024 * 1024;
}
const db = await PGlite.create(opts);
const a = process.memoryUsage();
console.log((await db.query('show shared_buffers')).rows[0]);
for (let i = 0; i < 2000; i++)
  await db.query('insert into t values ($1, $2) on conflict (k) do update set v = excluded.v', [
    'k' + (i % 1000),
    'x'.repeat(200),
  ]);
for (let i = 0; i < 2000; i++) await db.query('select * from t where k = $1', ['k' + (i % 1000)]);
global.gc();
const m = process.memoryUsage();
console.log(
  variant,
  'created rss',
  mb(a.rss),
  'ext',
  mb(a.external),
  '| after load rss',
  mb(m.rss),
  'heapTotal',
  mb(m.heapTotal),
  'external',
  mb(m.external),
);
process.exit(0);
