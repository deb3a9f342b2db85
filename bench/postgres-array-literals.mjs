// What an array written into a statement's text costs the PostgreSQL server to read: as one
// expression per value (`ARRAY['a', 'b']::text[]`, the record batches' form before) or as one
// literal in the array's text form (`'{"a","b"}'::text[]`, src/stores/postgres/statement.ts
// sqlArrayLiteral). A record batch of about 18 attempts sends some 500 values this way. The server
// backend's CPU time per query comes from /proc (PostgreSQL must run on this machine), so it holds
// on a busy machine. Not part of npm test; loopback only.
//
//   node bench/postgres-array-literals.mjs [--values 500] [--queries 2000] [--url postgres://postgres@127.0.0.1:5432/test]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';

const { values: options } = parseArgs({
  options: {
    values: { type: 'string', default: '500' },
    queries: { type: 'string', default: '2000' },
    url: { type: 'string', default: process.env.ACCT_WEBHOOK_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
  },
});
const client = new pg.Client(options.url);
await client.connect();
const backend = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
/** The backend's CPU time in ms (utime + stime, in clock ticks of 10 ms). */
const backendCpuMs = () => {
  const fields = readFileSync(`/proc/${backend}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

const strings = Array.from({ length: Number(options.values) }, (_, i) => `dlv_${i}_4mVt9QeZxK2hRw7L it's`);
const literal = (text) => `E'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
const forms = {
  'ARRAY[…] of literals': `ARRAY[${strings.map(literal).join(', ')}]::text[]`,
  'one literal, array text form': `${literal(`{${strings.map((text) => `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`)}::text[]`,
};
const results = Object.fromEntries(Object.keys(forms).map((name) => [name, []]));
try {
  // Alternating, three times each: the machine's drift falls on both forms alike.
  for (let round = 0; round < 3; round++) {
    for (const [name, form] of Object.entries(forms)) {
      const text = `SELECT cardinality(${form}) AS n`;
      const { rows } = await client.query(text);
      if (rows[0].n !== strings.length) throw new Error(`${name}: read ${rows[0].n} values of ${strings.length}`);
      const before = backendCpuMs();
      for (let i = 0; i < Number(options.queries); i++) await client.query(text);
      results[name].push((backendCpuMs() - before) / Number(options.queries));
    }
  }
} finally {
  await client.end();
}
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
console.table(Object.entries(results).map(([form, ms]) => ({ form, values: strings.length, 'server CPU ms per query (median)': median(ms).toFixed(3), rounds: ms.map((value) => value.toFixed(3)).join(' ') })));
