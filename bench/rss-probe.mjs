import { PGlite } from '@electric-sql/pglite';
const mb = (n) => (n / 1048576).toFixed(0);
const show = (label) => {
  const m = process.memoryUsage();
  console.log(
    label,
    'rss',
    mb(m.rss),
    'heapTotal',
    mb(m.heapTotal),
    'external',
    mb(m.external),
    'arrayBuffers',
    mb(m.arrayBuffers),
  );
};
show('start');
const db = await PGlite.create({ dataDir: process.argv[2] });
show('created');
await db.query('create table if not exists t (k text primary key, v text)');
for (let i = 0; i < 5000; i++)
  await db.query('insert into t values ($1, $2) on conflict (k) do update set v = excluded.v', [
    'k' + (i % 1000),
    'x'.repeat(200),
  ]);
show('after 5000 writes');
for (let i = 0; i < 5000; i++) await db.query('select * from t where k = $1', ['k' + (i % 1000)]);
show('after 5000 reads');
await new Promise((r) => setTimeout(r, 3000));
global.gc?.();
show('settled');
