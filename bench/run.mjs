#!/usr/bin/env node
// `npm run bench`: runs every benchmark script in bench/ one after the other (never two at once: they
// measure wall time on a small machine), prints one table and writes it to bench/results.md together
// with the machine it ran on. Each script is run as `node bench/<name>.mjs --json` and reports one JSON
// line on stdout. Needs `npm run build` first (npm install does it).
//   node bench/run.mjs [--all] [--only validate,plan,...] [--no-write]
//   --all  also runs the slow modes (apply against a rate-limited service, about 2.5 minutes)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    all: { type: 'boolean', default: false },
    only: { type: 'string' },
    'no-write': { type: 'boolean', default: false },
  },
});

const BENCH = fileURLToPath(new URL('.', import.meta.url));
const RESULTS = fileURLToPath(new URL('results.md', import.meta.url));

/** The benchmarks, in the order a reader meets the product; each turns its JSON into table rows. */
const benches = [
  { name: 'validate', args: [], rows: validateRows },
  { name: 'plan', args: [], rows: planRows },
  { name: 'apply', args: values.all ? ['--all'] : [], rows: applyRows },
  { name: 'export', args: [], rows: exportRows },
  { name: 'service', args: [], rows: serviceRows },
];

if (!existsSync(fileURLToPath(new URL('../dist/cli/main.js', import.meta.url)))) {
  console.error('dist/ is missing: run `npm run build` (or npm install, which builds it) first.');
  process.exit(1);
}

const only = values.only?.split(',').map((s) => s.trim());
const selected = benches.filter((b) => (only ? only.includes(b.name) : true));
const machine = describeMachine();
console.log(
  `Benchmarks on ${machine.cpu} (${machine.cores} cores, ${machine.memory}), Node ${machine.node}\n`,
);

const rows = [];
const details = [];
let failed = 0;
for (const bench of selected) {
  const script = `${BENCH}${bench.name}.mjs`;
  if (!existsSync(script)) {
    console.log(`- ${bench.name}: bench/${bench.name}.mjs does not exist here, skipped`);
    continue;
  }
  process.stdout.write(
    `- ${bench.name}: running node bench/${bench.name}.mjs --json ${bench.args.join(' ')}... `,
  );
  const started = performance.now();
  const result = await runScript(script, ['--json', ...bench.args]);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (result.code !== 0 || result.json === undefined) {
    failed += 1;
    console.log(`FAILED (exit ${result.code}, ${seconds} s)\n${result.stderr.trim()}`);
    rows.push({ bench: bench.name, what: `failed (exit ${result.code})` });
    continue;
  }
  console.log(`done in ${seconds} s`);
  rows.push(...bench.rows(result.json));
  details.push({ name: bench.name, json: result.json });
}

machine.loadAfter = loadavg()[0].toFixed(1);
const table = renderTable(rows);
console.log(`\n${table}`);
if (!values['no-write']) {
  writeFileSync(RESULTS, renderResults(table, details));
  console.log(`\nWritten to bench/results.md`);
}
if (failed > 0) process.exitCode = 1;

function runScript(script, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const last = stdout.trim().split('\n').at(-1) ?? '';
      let json;
      try {
        json = JSON.parse(last);
      } catch {
        json = undefined;
      }
      resolve({ code, json, stderr });
    });
  });
}

// Rows: bench, what, requests, wall, rss, throughput, speedup, target. Missing cells print as "–".

function validateRows(r) {
  return [
    {
      bench: 'validate',
      what: `accord validate, ${r.entries} entries (median of ${r.runs} runs)`,
      wall: `${r.median_ms} ms (max ${r.max_ms})`,
      throughput: `${Math.round((r.entries / r.median_ms) * 1000)} entries/s`,
      target: `< ${r.target_ms} ms`,
      ok: r.median_ms < r.target_ms,
    },
  ];
}

function planRows(r) {
  return [
    {
      bench: 'plan',
      what: `accord plan, ${r.managed} managed resources, 1 changed`,
      requests: `${r.requests} (${r.lower_bound})`,
      wall: `${r.wall_s} s (API ${r.api_s} s)`,
      rss: `${r.peak_rss_mb} MB`,
      throughput: `${Math.round(r.managed / r.wall_s)} resources/s`,
      target: `${r.requests === r.lower_bound ? '= lower bound, ' : ''}< ${r.targets.wall_s} s, < ${r.targets.peak_rss_mb} MB`,
      ok:
        r.requests === r.lower_bound && r.wall_s < r.targets.wall_s && r.peak_rss_mb < r.targets.peak_rss_mb,
    },
  ];
}

function exportRows(r) {
  return [
    {
      bench: 'export',
      what: `accord export, ${r.resources} unmanaged resources (then plan: ${r.plan_only_adopts ? 'only adopts' : 'NOT only adopts'})`,
      requests: `${r.requests} (${r.lower_bound})`,
      wall: `${r.wall_s} s (API ${r.api_s} s)`,
      rss: `${r.peak_rss_mb} MB`,
      throughput: `${Math.round(r.resources / r.wall_s)} resources/s`,
      target: `${r.requests === r.lower_bound ? '= lower bound, ' : ''}< ${r.targets.wall_s} s, < ${r.targets.peak_rss_mb} MB`,
      ok:
        r.plan_only_adopts &&
        r.requests === r.lower_bound &&
        r.wall_s < r.targets.wall_s &&
        r.peak_rss_mb < r.targets.peak_rss_mb,
    },
  ];
}

/** apply reports one entry per scenario (`modes` or `results`), or a single one. */
function applyRows(r) {
  const modes = Array.isArray(r.modes) ? r.modes : Array.isArray(r.results) ? r.results : [r];
  return modes.map((m) => ({
    bench: 'apply',
    what: m.what ?? m.name ?? m.mode ?? 'accord apply',
    requests: m.requests === undefined ? undefined : `${m.requests} (${m.lower_bound ?? '–'})`,
    wall: m.wall_s === undefined ? undefined : `${m.wall_s} s`,
    rss: m.peak_rss_mb === undefined ? undefined : `${m.peak_rss_mb} MB`,
    throughput:
      m.throughput ?? (m.changes && m.wall_s ? `${Math.round(m.changes / m.wall_s)} changes/s` : undefined),
    speedup: m.speedup === undefined ? undefined : `${m.speedup}x ${m.speedup_vs ?? ''}`.trim(),
    target: m.target,
    ok: m.ok,
  }));
}

function serviceRows(r) {
  return Object.entries(r.results).map(([name, x]) => ({
    bench: 'service',
    what: `GET ${name === 'one' ? 'one resource' : 'a 100-item list page'} (${x.bytes} B), ${r.connections} connections`,
    wall: `p99 ${x.accord.p99_ms} ms`,
    throughput: `${x.accord.req_per_s} req/s`,
    speedup: `${x.ratio}x of bare fastify (${x.bare.req_per_s} req/s)`,
  }));
}

function renderTable(list) {
  const head = [
    'Benchmark',
    'Scenario',
    'Requests (lower bound)',
    'Wall',
    'Peak RSS',
    'Throughput',
    'Speed-up / ratio',
    'Target',
  ];
  const cell = (v) => (v === undefined || v === '' ? '–' : String(v).replaceAll('|', '\\|'));
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const r of list) {
    const target =
      r.target === undefined ? undefined : `${r.target}${r.ok === undefined ? '' : r.ok ? ' ✓' : ' ✗'}`;
    lines.push(
      `| ${[r.bench, r.what, r.requests, r.wall, r.rss, r.throughput, r.speedup, target].map(cell).join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

function describeMachine() {
  const cpu = cpus();
  const git = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  return {
    cpu: cpu[0]?.model.trim() ?? 'unknown CPU',
    cores: cpu.length,
    memory: `${(totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    node: process.version,
    os: `${process.platform} ${process.arch}`,
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    commit: git.status === 0 ? git.stdout.trim() : undefined,
    // Other work on the machine slows every number down; say how busy it was.
    loadBefore: loadavg()[0].toFixed(1),
  };
}

function renderResults(tableText, list) {
  const m = machine;
  return [
    '# Benchmark results',
    '',
    'Produced by `npm run bench` (bench/run.mjs); do not edit by hand. Each row comes from one script in',
    '`bench/`, run on its own as `node bench/<name>.mjs --json`; every script also runs alone with readable output.',
    '',
    `- Machine: ${m.cpu}, ${m.cores} cores, ${m.memory} memory, ${m.os}`,
    `- Node ${m.node}; run ${m.date}${m.commit ? ` at commit ${m.commit}` : ''}${values.all ? '; with --all' : ''}`,
    `- Load average (1 min): ${m.loadBefore} before, ${m.loadAfter} after${
      Math.max(Number(m.loadBefore), Number(m.loadAfter)) > m.cores
        ? ` — more than the ${m.cores} cores: other work shared the machine, so times are pessimistic`
        : ''
    }`,
    '',
    tableText,
    '',
    '"Requests (lower bound)": requests the run made, and in brackets the fewest that could do the job (one',
    'list page per 100 resources of each kind plus one GET per named edge module; one request per change).',
    '',
    '<details><summary>Raw numbers</summary>',
    '',
    ...list.flatMap((d) => [`**${d.name}**`, '', '```json', JSON.stringify(d.json, null, 2), '```', '']),
    '</details>',
    '',
  ].join('\n');
}
