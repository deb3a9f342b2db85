// The load generator, in its own process: pre-generates a pool of signed requests with unique
// event ids, then drives them with autocannon and prints {rps, ...}.
// Usage: node bench/load.mjs <port> <seconds> <connections> <platform|github> <pool size>
import autocannon from 'autocannon';
import { githubRequest, platformRequest } from './lib/events.mjs';

const [port, seconds, connections, scheme, poolSize] = process.argv.slice(2);
const make = scheme === 'github' ? githubRequest : platformRequest;
const pool = Array.from({ length: Number(poolSize) }, (_, i) => make(i));
let next = 0;

const result = await autocannon({
  url: `http://127.0.0.1:${port}`,
  connections: Number(connections),
  duration: Number(seconds),
  requests: [{ setupRequest: (request) => ({ ...request, ...pool[next++ % pool.length] }) }],
});
const ok = result['2xx'];
console.log(
  JSON.stringify({
    rps: ok / result.duration,
    ok,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    p99Ms: result.latency.p99,
    reusedRequests: Math.max(0, next - pool.length),
  }),
);
