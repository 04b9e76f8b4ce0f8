// Listing cost of the API client against the local service: requests and time to list N IP policies,
// clean and with 30% injected faults. Run `npm run build` first.
// Usage: node bench/client-list.mjs [--json] [--n 5000]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from '../dist/api/client.js';
import { startServer } from '../dist/server/index.js';

const args = process.argv.slice(2);
const json = args.includes('--json');
const nIndex = args.indexOf('--n');
const n = nIndex >= 0 ? Number(args[nIndex + 1]) : 5000;
const KEY = 'bench_key_0123456789';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function policyId(i) {
  let body = '';
  for (let v = i; body.length < 6; v = Math.floor(v / 62)) body = ALPHABET[v % 62] + body;
  return `ipp_bench${body.padStart(22, '0')}`;
}

const dir = mkdtempSync(join(tmpdir(), 'accord-bench-'));
const seed = join(dir, 'seed.yaml');
writeFileSync(
  seed,
  `ip_policies:\n${Array.from({ length: n }, (_, i) => `  - id: ${policyId(i)}\n`).join('')}`,
);

async function run(label, serverOpts) {
  const server = await startServer({ port: 0, apiKeys: [KEY], seed, ...serverOpts });
  const client = new ApiClient({
    baseUrl: server.url,
    apiKey: KEY,
    retryPolicy: { baseDelayMs: 5, maxDelayMs: 50 },
  });
  const started = performance.now();
  let count = 0;
  for await (const _ of client.listAll('/ip_policies', 'ip_policies')) count++;
  const ms = performance.now() - started;
  await client.close();
  await server.close();
  if (count !== n) throw new Error(`${label}: listed ${count}, expected ${n}`);
  return {
    case: label,
    resources: n,
    requests: client.stats.count(),
    retries: client.stats.retries,
    ms: Math.round(ms),
  };
}

const results = [await run('clean', {}), await run('faults 30%', { faultRate: 0.3, faultSeed: 1 })];
rmSync(dir, { recursive: true, force: true });
if (json) {
  console.log(JSON.stringify({ bench: 'client-list', results }));
} else {
  for (const r of results) {
    console.log(
      `${r.case.padEnd(11)} ${r.resources} resources: ${r.requests} requests (${r.retries} retries) in ${r.ms} ms`,
    );
  }
}

export { results };
