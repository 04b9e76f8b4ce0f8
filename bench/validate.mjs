#!/usr/bin/env node
// `accord validate` wall time on a 1,000-entry file (target: under 0.5 s on a 2-core machine).
// Usage: node bench/validate.mjs [--json] [--runs N]   (needs `npm run build` first)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLI, caPem, ed25519Line, numberArg } from './lib.mjs';

const ENTRIES = 1000;
const args = process.argv.slice(2);
const json = args.includes('--json');
const runs = numberArg(args, '--runs', 7);

export function writeBenchFile(dir) {
  mkdirSync(join(dir, 'certs'), { recursive: true });
  mkdirSync(join(dir, 'keys'), { recursive: true });
  const cas = 100;
  const certs = ENTRIES - 4 - cas - 10 - 20;
  const lines = ['version: 1', 'owner: bench', 'ip_restrictions:'];
  const types = ['dashboard', 'api', 'agent', 'endpoints'];
  types.forEach((type, i) => {
    const policies =
      i === 0
        ? '[&office ipp_2benchOffice000000000000000, &vpn ipp_2benchVpn0000000000000000000]'
        : '[*office, *vpn]';
    lines.push(
      `  ${type}-only:`,
      `    type: ${type}`,
      '    enforced: true',
      `    ip_policies: ${policies}`,
      `    description: ${type} traffic from the office`,
      '    metadata: {team: platform, cost_center: 42}',
    );
  });
  lines.push('certificate_authorities:');
  const pems = [caPem(dir, 'root-a'), caPem(dir, 'root-b')];
  for (let i = 0; i < cas; i++) {
    lines.push(`  ca-${i}:`, `    ca_pem_file: ${pems[i % 2]}`, `    description: CA number ${i}`);
  }
  lines.push('ssh_host_certificates:');
  for (let i = 0; i < certs; i++) {
    const key = ed25519Line(`root@host-${i}`);
    const source = i % 2 === 0 ? `    public_key: ${key}` : `    public_key_file: keys/host-${i}.pub`;
    if (i % 2 === 1) writeFileSync(join(dir, 'keys', `host-${i}.pub`), `${key}\n`);
    lines.push(
      `  host-${i}:`,
      `    ssh_certificate_authority_id: ${i === 0 ? '&ca ' : '*'}${i === 0 ? 'sshca_2benchHostCA000000000000000' : 'ca'}`,
      source,
      `    principals: [host-${i}.example.com, 10.0.${i >> 8}.${i & 255}]`,
      '    valid_for: 90d',
      '    renew_before: 30d',
      `    metadata: {rack: r${i % 40}, index: ${i}}`,
    );
  }
  lines.push('tcp_edges:');
  for (let i = 0; i < 10; i++) {
    lines.push(
      `  edgtcp_2bench${String(i).padStart(20, '0')}:`,
      '    ip_restriction: {enabled: true, ip_policies: [*office]}',
    );
  }
  lines.push('https_edges:', '  edghts_2benchWeb000000000000000000:', '    routes:');
  for (let i = 0; i < 20; i++) {
    lines.push(
      `      edghtsrt_2bench${String(i).padStart(22, '0')}:`,
      '        websocket_tcp_converter: {enabled: true}',
    );
  }
  const file = join(dir, 'accord.yaml');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

export function runBench() {
  const dir = mkdtempSync(join(tmpdir(), 'accord-bench-validate-'));
  let result;
  try {
    const file = writeBenchFile(dir);
    // CPU time (user + system) of the process, when /usr/bin/time can tell: on a busy machine it is the
    // better guide to what the command costs, while wall time also counts waiting for a core.
    const timer = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
    const times = [];
    const cpuTimes = [];
    for (let i = 0; i < runs; i++) {
      const argv = [CLI, 'validate', '-f', file];
      const start = process.hrtime.bigint();
      const r = timer
        ? spawnSync(timer, ['-f', 'cpu %U %S', process.execPath, ...argv], { encoding: 'utf8' })
        : spawnSync(process.execPath, argv, { encoding: 'utf8' });
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (r.status !== 0) throw new Error(`validate failed (exit ${r.status}):\n${r.stderr}`);
      if (i === 0 && !json) console.log(r.stdout.trim());
      times.push(ms);
      const cpu = /cpu ([\d.]+) ([\d.]+)/.exec(r.stderr);
      if (cpu) cpuTimes.push((Number(cpu[1]) + Number(cpu[2])) * 1000);
    }
    const median = (xs) => Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]);
    result = {
      name: 'validate',
      entries: ENTRIES,
      file_bytes: statSync(file).size,
      runs,
      median_ms: median(times),
      max_ms: Math.round(Math.max(...times)),
      cpu_median_ms: cpuTimes.length ? median(cpuTimes) : null,
      load_average: Number(loadavg()[0].toFixed(2)),
      cores: cpus().length,
      target_ms: 500,
    };
    if (json) console.log(JSON.stringify(result));
    else {
      console.log(
        `validate, ${ENTRIES} entries (${Math.round(result.file_bytes / 1024)} KB), ${runs} runs: ` +
          `wall median ${result.median_ms} ms, max ${result.max_ms} ms; ` +
          `CPU median ${result.cpu_median_ms ?? '?'} ms (target < 500 ms wall; ` +
          `load average ${result.load_average} on ${result.cores} cores)`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return result;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) runBench();
