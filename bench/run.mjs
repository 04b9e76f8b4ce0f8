#!/usr/bin/env node
// `npm run bench`: runs every benchmark script in bench/ one after the other (never two at once: they
// measure wall time on a small machine), prints one table and writes it to bench/results.md together
// with the machine it ran on. Each script is run as `node bench/<name>.mjs --json` and reports one JSON
// line on stdout. Needs `npm run build` first (npm install does it).
//   node bench/run.mjs [--all] [--only validate,plan,...] [--no-write]
//   --all   also runs the slow modes (apply against a rate-limited service, about 2.5 minutes, and
//           rule creates under a limit the CLI is not told, about 4.5 minutes)
//   --only  runs only the named scripts; the others' rows are kept from bench/results.md as it was
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runMeasured } from './lib.mjs';

const { values } = parseArgs({
  options: {
    all: { type: 'boolean', default: false },
    only: { type: 'string' },
    'no-write': { type: 'boolean', default: false },
  },
});

const BENCH = fileURLToPath(new URL('.', import.meta.url));
const RESULTS = fileURLToPath(new URL('results.md', import.meta.url));
const README = fileURLToPath(new URL('../README.md', import.meta.url));

/** The benchmarks, in the order a reader meets the product; each turns its JSON into table rows. */
const known = [
  { name: 'validate', args: [], rows: validateRows },
  { name: 'plan', args: [], rows: planRows },
  { name: 'apply', args: values.all ? ['--all'] : [], rows: applyRows },
  { name: 'export', args: [], rows: exportRows },
  { name: 'client-list', args: [], rows: clientListRows },
  { name: 'service', args: [], rows: serviceRows },
  { name: 'rules', args: values.all ? ['--all'] : [], rows: rulesRows },
  { name: 'reach', args: [], rows: reachRows },
  { name: 'endpoint-reach', args: [], rows: endpointReachRows },
];
// A script added to bench/ later is run too, and shown as its raw numbers until it gets its own rows.
const others = readdirSync(BENCH)
  .filter((f) => f.endsWith('.mjs') && f !== 'run.mjs' && f !== 'lib.mjs')
  .map((f) => f.replace(/\.mjs$/, ''))
  .filter((name) => !known.some((b) => b.name === name))
  .map((name) => ({ name, args: [], rows: (r) => genericRows(name, r) }));
const benches = [...known, ...others];

if (!existsSync(fileURLToPath(new URL('../dist/bundle/main.js', import.meta.url)))) {
  console.error('dist/ is missing: run `npm run build` (or npm install, which builds it) first.');
  process.exit(1);
}

const only = values.only?.split(',').map((s) => s.trim());
const selected = benches.filter((b) => (only ? only.includes(b.name) : true));
/** With --only, the last results of the scripts not run, to keep in bench/results.md. */
const previous = only ? readPrevious() : { runLine: undefined, json: new Map() };
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
  if (result.json === undefined) {
    failed += 1;
    console.log(`FAILED (exit ${result.code}, ${seconds} s)\n${result.stderr.trim()}`);
    rows.push({ bench: bench.name, what: `failed (exit ${result.code})` });
    continue;
  }
  // A script that measured but missed a target exits 1; its rows say which target (✗).
  console.log(
    `done in ${seconds} s${result.code === 0 ? '' : ` (exit ${result.code}: a target was missed)`}`,
  );
  rows.push(...bench.rows(result.json));
  details.push({ name: bench.name, json: result.json });
}

machine.loadAfter = loadavg()[0].toFixed(1);
const kept = benches.filter((b) => !selected.includes(b) && previous.json.has(b.name));
for (const bench of kept) {
  rows.push(...bench.rows(previous.json.get(bench.name)));
  details.push({ name: bench.name, json: previous.json.get(bench.name) });
}
// In the order of `benches`, whichever run they came from.
const order = (name) => benches.findIndex((b) => b.name === name);
rows.sort((a, b) => order(a.bench) - order(b.bench));
details.sort((a, b) => order(a.name) - order(b.name));
const table = renderTable(rows);
console.log(`\n${table}`);
if (!values['no-write']) {
  writeFileSync(RESULTS, renderResults(table, details));
  console.log(`\nWritten to bench/results.md`);
  if (quoteInReadme(table)) console.log('Quoted in README.md (Performance)');
}
if (failed > 0) process.exitCode = 1;

/** Replaces the README's quoted table (between the bench markers) with this run's, when it has them. */
function quoteInReadme(tableText) {
  if (!existsSync(README)) return false;
  const text = readFileSync(README, 'utf8');
  const start = '<!-- bench:start -->';
  const end = '<!-- bench:end -->';
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a < 0 || b < a) return false;
  const m = machine;
  const quote = [
    start,
    `On ${m.cpu}, ${m.cores} cores, ${m.memory}, Node ${m.node}, ${m.date.slice(0, 10)} (load average ${m.loadBefore})${
      kept.length > 0 ? `; ${kept.map((b) => b.name).join(', ')} from the run before` : ''
    }:`,
    '',
    padded(tableText),
    '',
  ].join('\n');
  writeFileSync(README, text.slice(0, a) + quote + text.slice(b));
  return true;
}

/** The table with its columns padded to one width each, as the README's other tables are. */
function padded(tableText) {
  const rows = tableText.split('\n').map((l) =>
    l
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((c) => c.trim()),
  );
  const widths = rows[0].map((_, i) => Math.max(...rows.filter((_, r) => r !== 1).map((r) => r[i].length)));
  return rows
    .map((cells, r) =>
      r === 1
        ? `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`
        : `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`,
    )
    .join('\n');
}

async function runScript(script, args) {
  const { status, stdout, stderr } = await runMeasured(process.execPath, [script, ...args]);
  const last = stdout.trim().split('\n').at(-1) ?? '';
  let json;
  try {
    json = JSON.parse(last);
  } catch {
    json = undefined;
  }
  return { code: status, json, stderr };
}

// Rows: bench, what, requests, wall, rss, throughput, speedup, target. Missing cells print as "–".

function validateRows(r) {
  return [
    {
      bench: 'validate',
      what: `accord validate, ${r.entries} entries (median of ${r.runs} runs)`,
      wall: `${r.median_ms} ms (max ${r.max_ms}${r.cpu_median_ms ? `; CPU ${r.cpu_median_ms} ms` : ''})`,
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
      wall: `${r.wall_s} s (API ${r.api_s} s${r.cpu_s ? `; CPU ${r.cpu_s} s` : ''}${r.phases_s?.load_file ? `; loading the file ${r.phases_s.load_file} s` : ''})`,
      rss: `${r.peak_rss_mb} MB`,
      throughput: `${Math.round(r.managed / r.wall_s)} resources/s`,
      target: `${r.requests === r.lower_bound ? '= lower bound, ' : ''}< ${r.targets.wall_s} s, < ${r.targets.peak_rss_mb} MB`,
      ok:
        r.requests === r.lower_bound && r.wall_s < r.targets.wall_s && r.peak_rss_mb < r.targets.peak_rss_mb,
    },
  ];
}

/** apply reports one entry per mode: parallelism 1, 4, 16 (and, with --all, the rate-limited run). */
function applyRows(r) {
  const modes = Array.isArray(r.modes) ? r.modes : [r];
  return modes.map((m) => {
    const extra = [
      m.retries ? `${m.retries} retries` : '',
      m.failed_requests ? `${m.failed_requests} failed` : '',
    ].filter(Boolean);
    return {
      bench: 'apply',
      what: m.what ?? 'accord apply',
      requests:
        m.requests === undefined
          ? undefined
          : `${m.requests} (${m.changes} writes + the plan's reads)${extra.length ? `, ${extra.join(', ')}` : ''}`,
      wall: m.apply_s === undefined ? undefined : `${m.apply_s} s applying (${m.wall_s} s process)`,
      throughput: m.changes && m.apply_s ? `${Math.round(m.changes / m.apply_s)} changes/s` : undefined,
      speedup: m.speedup === undefined ? undefined : `${m.speedup}x ${m.speedup_vs ?? ''}`.trim(),
      target: m.target,
      ok: m.target === undefined ? undefined : m.ok,
    };
  });
}

function exportRows(r) {
  return [
    {
      bench: 'export',
      what: `accord export, ${r.resources} unmanaged resources (${r.file_kb} KB file); the plan of it ${r.plan_only_adopts ? 'only adopts' : 'NOT only adopts'}`,
      requests: `${r.requests} (${r.lower_bound})`,
      wall: `${r.wall_s} s (API ${r.api_s} s); its plan ${r.plan_wall_s} s`,
      rss: r.peak_rss_mb === null ? undefined : `${r.peak_rss_mb} MB`,
      throughput: `${Math.round(r.resources / r.wall_s)} resources/s`,
      target: `${r.requests === r.lower_bound ? '= lower bound, ' : ''}< ${r.targets.wall_s} s, < ${r.targets.peak_rss_mb} MB`,
      ok:
        r.requests === r.lower_bound &&
        r.plan_only_adopts &&
        r.wall_s < r.targets.wall_s &&
        (r.peak_rss_mb ?? 0) < r.targets.peak_rss_mb,
    },
  ];
}

function clientListRows(r) {
  return r.results.map((x) => ({
    bench: 'client-list',
    what: `API client lists ${x.resources} IP policies, ${x.case}`,
    requests: `${x.requests} (${Math.ceil(x.resources / 100)})${x.retries ? `, ${x.retries} retries` : ''}`,
    wall: `${x.ms} ms`,
    throughput: `${Math.round((x.resources / x.ms) * 1000)} resources/s`,
  }));
}

/** A script without its own rows: its top-level numbers, as they are. */
function genericRows(name, r) {
  const numbers = Object.entries(r)
    .filter(([, v]) => typeof v === 'number' || typeof v === 'boolean')
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return [{ bench: name, what: numbers || 'see the raw numbers below' }];
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

function rulesRows(r) {
  const rows = [];
  if (r.plan) {
    const p = r.plan;
    rows.push({
      bench: 'rules',
      what: `accord plan, ${p.rules} rules in ${p.policies} policies, 1 changed`,
      requests: `${p.requests} (${p.lower_bound})`,
      wall: `${p.wall_s} s`,
      rss: p.peak_rss_mb === undefined ? undefined : `${p.peak_rss_mb} MB`,
      throughput: `${Math.round(p.rules / p.wall_s)} rules/s`,
      target: '= lower bound',
      ok: p.requests === p.lower_bound,
    });
  }
  if (r.rate_limited) {
    const x = r.rate_limited;
    rows.push({
      bench: 'rules',
      what: `accord apply, ${x.creates} creates under accord serve --rate-limit 120/60, the CLI not told`,
      requests: `${x.requests}, ${x.retries_429} retries after 429`,
      wall: `${x.wall_s} s (bound ${x.bound_s} s)`,
      speedup: `x${x.ratio} of the bound`,
      target: `<= ${x.targets.ratio} x bound, <= ${x.targets.retries_429} x 429`,
      ok: x.ratio <= x.targets.ratio && x.retries_429 <= x.targets.retries_429,
    });
  }
  return rows;
}

function reachRows(r) {
  return [
    {
      bench: 'reach',
      what: `reach of ${r.rules} rules, ${r.policies} policies, 4 types, ${r.edges} TCP edges, 1 rule added (median of ${r.runs} runs)`,
      wall: `CPU ${r.reach_cpu_ms} ms (fewest ${r.reach_cpu_min_ms}; first ${r.reach_cpu_first_ms})`,
      target: `< ${r.target_ms} ms CPU`,
      ok: r.reach_cpu_ms < r.target_ms && r.reach_cpu_first_ms < r.target_ms,
    },
    {
      bench: 'reach',
      what: `accord plan of it (${r.scopes} scopes, ${r.changed_scopes} changed)`,
      requests: `${r.requests} (${r.lower_bound})`,
      wall: `${r.plan_wall_s} s`,
      target: '= lower bound',
      ok: r.requests === r.lower_bound,
    },
  ];
}

function endpointReachRows(r) {
  return [
    {
      bench: 'endpoint-reach',
      what: `reach of ${r.rules} rules, ${r.policies} policies, ${r.endpoints} endpoints (1-3 policies and own CIDRs each), 1 rule deleted (median of ${r.runs} runs)`,
      wall: `CPU ${r.reach_cpu_ms} ms (fewest ${r.reach_cpu_min_ms}; first ${r.reach_cpu_first_ms})`,
      target: `< ${r.target_ms} ms CPU`,
      ok: r.reach_cpu_ms < r.target_ms && r.reach_cpu_first_ms < r.target_ms,
    },
  ];
}

/** The raw numbers of each script, and the line saying when they were measured, from results.md. */
function readPrevious() {
  const json = new Map();
  if (!existsSync(RESULTS)) return { runLine: undefined, json };
  const text = readFileSync(RESULTS, 'utf8');
  for (const [, name, body] of text.matchAll(/^\*\*([\w-]+)\*\*\n\n```json\n([\s\S]*?)\n```/gm)) {
    try {
      json.set(name, JSON.parse(body));
    } catch {
      // A block that does not parse is dropped: its script will show up again when it is run.
    }
  }
  return { runLine: /^- (Node .*)$/m.exec(text)?.[1], json };
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
    ...(kept.length > 0
      ? [
          `- Only ${selected.map((b) => b.name).join(', ')} run then (\`--only\`); ${kept.map((b) => b.name).join(', ')} kept from the run before (${previous.runLine ?? 'unknown'})`,
        ]
      : []),
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
