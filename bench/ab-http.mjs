// The HTTP targets of bench/run.mjs, an older build beside this one: every server of its
// http group that those ratios need, the older build's and this build's alternating round by
// round (the bare servers and @octokit/webhooks once a round), with each server's CPU per request
// from /proc (steadier than requests per second on a busy machine). Loopback only; Linux.
//
//   npm run build && node bench/ab-http.mjs --baseline <checkout of the older commit, built> [--rounds 3] [--seconds 5] [--pool 90000]
//
// The baseline is a directory holding the older commit's bench/ and dist/ (for example
// `git worktree add ../base <commit> && cd ../base && npm ci && npm run build`): its servers load
// its own dist.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startChild, stop } from './lib/child.mjs';

const { values } = parseArgs({
  options: {
    baseline: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    pool: { type: 'string', default: '90000' },
  },
});
if (!values.baseline) {
  console.error('bench/ab-http.mjs: --baseline <directory of the older build> is required');
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const rounds = Number(values.rounds), seconds = values.seconds;
const builds = { base: values.baseline, new: join(here, '..') };
const servers = [
  ['node bare', 'node-bare.mjs', 'platform', false],
  ['express bare', 'express-bare.mjs', 'platform', false],
  ['octokit', 'express-octokit.mjs', 'github', false],
  ['nodeHandler', 'node-webhook.mjs', 'platform', true],
  ['webhookHandler', 'express-webhook.mjs', 'platform', true],
  ['inbox webhookHandler', 'express-webhook-inbox.mjs', 'platform', true],
  ['inbox nodeHandler', 'node-webhook-inbox.mjs', 'platform', true],
  ['nodeHandler postgres', 'node-webhook-postgres.mjs', 'platform', true],
];
/** User + system seconds of a process, from /proc/<pid>/stat (in clock ticks of 1/100 s). */
const cpuOf = (pid) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) / 100; };
async function measure(root, script, scheme) {
  const { child, message } = await startChild(join(root, 'bench/servers', script));
  const load = spawn(process.execPath, [join(here, 'load.mjs'), String(message.port), seconds, '50', scheme, values.pool], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = ''; load.stdout.on('data', (c) => (out += c));
  const c0 = cpuOf(child.pid); let start = c0;
  // The pool is generated first; count the server's CPU from its first request on.
  while ((start = cpuOf(child.pid)) - c0 < 0.02 && load.exitCode === null) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => (load.exitCode !== null ? r() : load.once('exit', r)));
  const cpu = cpuOf(child.pid) - start;
  await stop(child);
  const r = JSON.parse(out.trim().split('\n').at(-1));
  if (r.reusedRequests > 0 || r.non2xx > 0) console.error(`warning: ${script} reused ${r.reusedRequests}, non2xx ${r.non2xx}`);
  return { rps: r.rps, us: (cpu * 1e6) / r.ok };
}
/** Per configuration, one {rps, us} a round. */
const samples = {};
for (let round = 0; round < rounds; round++) {
  for (const [name, script, scheme, ours] of servers) {
    for (const [build, root] of Object.entries(ours ? builds : { new: builds.new })) {
      const key = ours ? `${name} (${build})` : name;
      const m = await measure(root, script, scheme);
      (samples[key] ??= []).push(m);
      console.error(`round ${round + 1} ${key}: ${Math.round(m.rps)} req/s, ${m.us.toFixed(1)} µs/req`);
    }
  }
}
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };
const rps = (k) => med(samples[k].map((m) => m.rps));
const table = Object.keys(samples).map((k) => ({ server: k, 'req/s': Math.round(rps(k)), 'CPU µs/req': med(samples[k].map((m) => m.us)).toFixed(1) }));
console.table(table);
const checks = [
  ['nodeHandler / node bare', 'nodeHandler', 'node bare', 0.45],
  ['webhookHandler / express bare', 'webhookHandler', 'express bare', 0.72],
  ['webhookHandler / octokit', 'webhookHandler', 'octokit', 0.8],
  ['inbox webhookHandler / octokit', 'inbox webhookHandler', 'octokit', 0.75],
  ['inbox nodeHandler / node bare', 'inbox nodeHandler', 'node bare', 0.4],
  ['postgres / sqlite nodeHandler', 'nodeHandler postgres', 'nodeHandler', 0.6],
];
const ratioOf = (build, a, b) => {
  // per round ratios, median
  const k = (n) => (samples[`${n} (${build})`] ? `${n} (${build})` : n);
  return med(samples[k(a)].map((m, i) => m.rps / samples[k(b)][i].rps));
};
console.table(checks.map(([name, a, b, target]) => ({ check: name, before: ratioOf('base', a, b).toFixed(2), after: ratioOf('new', a, b).toFixed(2), target })));
console.log(JSON.stringify(samples));
