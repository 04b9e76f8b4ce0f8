#!/usr/bin/env node
// `npm run demo`: accord end to end on this machine, nothing to sign up for. Starts the local service
// in this process with examples/seed.yaml, runs the built CLI (bin/accord.js) as a separate process
// against it: plan, apply, the certificates it wrote, a second plan with nothing to do; then stops.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'bin', 'accord.js');
const FILE = join(ROOT, 'examples', 'accord.yaml');
const SEED = join(ROOT, 'examples', 'seed.yaml');
const KEY = 'demo-key-not-a-secret';
const color = process.stdout.isTTY && !process.env.NO_COLOR;
const bold = (s) => (color ? `\x1b[1m${s}\x1b[0m` : s);
const dim = (s) => (color ? `\x1b[2m${s}\x1b[0m` : s);

if (!existsSync(join(ROOT, 'dist', 'server', 'index.js'))) {
  console.error(
    'accord is not built yet: run `npm install` (it builds dist/) or `npm run build`, then try again.',
  );
  process.exit(1);
}
const { startServer } = await import('../dist/server/index.js');

let step = 0;
const say = (title, ...lines) => {
  step += 1;
  console.log(`\n${bold(`${step}. ${title}`)}`);
  for (const line of lines) console.log(`   ${line}`);
};
const show = (text) => {
  const body = text.replace(/\n+$/, '');
  if (body) console.log(body.replace(/^/gm, '     '));
};

/**
 * Runs `accord ...` as its own process (the server lives in this one, so never spawnSync). With
 * `samePlan`, the plan it prints first (already shown by the step before) is left out.
 */
function accord(args, { samePlan = false } = {}) {
  console.log(`\n   ${dim('$')} accord ${args.join(' ')}`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      env: {
        ...process.env,
        ACCORD_API_URL: server.url,
        ACCORD_API_KEY: KEY,
        ...(color ? { FORCE_COLOR: '1' } : {}),
      },
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const planEnd = out.search(/^Plan: .*\n/m);
      if (samePlan && planEnd >= 0) {
        show(dim('(the same plan as above, then:)'));
        show(out.slice(planEnd).replace(/^Plan: .*\n/, ''));
      } else {
        show(out);
      }
      resolve({ code, out });
    });
  });
}

function expectExit(result, wanted, what) {
  if (result.code !== wanted) {
    console.error(
      `\nThe demo stopped: ${what} exited ${result.code}, expected ${wanted}. Its output is above.`,
    );
    process.exitCode = 1;
    throw new Error('demo failed');
  }
}

console.log(bold('accord demo: one account kept as code, against a local copy of the API'));
console.log(
  'Nothing here touches a real account: the service runs inside this process and stops at the end.',
);

const server = await startServer({ port: 0, apiKeys: [KEY], seed: SEED });
const certDir = mkdtempSync(join(tmpdir(), 'accord-demo-certs-'));
let stopped = false;
try {
  say(
    'Started the local Account Management API (what `accord serve` runs)',
    `listening on ${server.url}, preloaded from ${relative(ROOT, SEED)} with what the API only references:`,
    'two IP policies (office, vpn), an SSH certificate authority, a TCP edge and an HTTPS edge with two routes.',
    `The CLI finds it through ACCORD_API_URL=${server.url} and ACCORD_API_KEY (a demo key).`,
  );

  say(
    `The desired state: ${relative(ROOT, FILE)}`,
    'It asks for an IP policy with its rules (one read from cidrs/ci-runners.txt), 2 IP restrictions',
    '(one naming the policy by key), 1 certificate authority, 3 SSH host certificates (signed by the',
    'seeded CA), an IP restriction on the TCP edge, and the websocket converter on for one HTTPS route',
    'and absent from the other.',
    'accord validate checks it without contacting the API:',
  );
  expectExit(await accord(['validate', '-f', relative(ROOT, FILE)]), 0, 'accord validate');

  say(
    'accord plan: what would change (reads the account, changes nothing)',
    '+ create, ~ patch or put, -/+ replace, - delete. Exit code 2 with --detailed-exitcode means "changes".',
  );
  expectExit(
    await accord(['plan', '-f', relative(ROOT, FILE), '--detailed-exitcode']),
    2,
    'accord plan --detailed-exitcode',
  );

  say(
    'accord apply: make it so',
    '--auto-approve skips the "yes" prompt (as in CI); --cert-dir writes each issued host certificate.',
  );
  expectExit(
    await accord(['apply', '-f', relative(ROOT, FILE), '--auto-approve', '--cert-dir', certDir], {
      samePlan: true,
    }),
    0,
    'accord apply --auto-approve',
  );

  const certs = readdirSync(certDir).sort();
  say(
    `The host certificates, in ${certDir}`,
    ...certs.map((f) => `${f}  (${readFileSync(join(certDir, f), 'utf8').split(' ')[0]})`),
    'Each one goes next to its host key on the server (HostCertificate in sshd_config).',
  );
  const bastion = certs.find((f) => f.startsWith('bastion')) ?? certs[0];
  if (bastion && spawnSync('ssh-keygen', ['-?'], { stdio: 'ignore' }).error === undefined) {
    console.log(`\n   ${dim('$')} ssh-keygen -L -f ${bastion}`);
    const r = spawnSync('ssh-keygen', ['-L', '-f', join(certDir, bastion)], { encoding: 'utf8' });
    show(r.stdout + r.stderr);
    if (r.status !== 0) expectExit({ code: r.status }, 0, 'ssh-keygen -L');
  }

  say(
    'accord plan again: the account now matches the file',
    'No state file was written: the account itself, listed through the API, is the only state.',
  );
  const again = await accord(['plan', '-f', relative(ROOT, FILE), '--detailed-exitcode']);
  expectExit(again, 0, 'the second accord plan --detailed-exitcode');

  await server.close();
  stopped = true;
  say('Stopped the local service; its data was in memory only, so the next demo starts afresh.');
  console.log(`\n${bold('Done.')} Next:`);
  console.log(
    '   node bin/accord.js serve --seed examples/seed.yaml   keep a local service running and try your own edits\n' +
      '     (accord serve --seed examples/seed.yaml once accord is installed: the package ships the seed)',
  );
  console.log('   README.md                               use accord against a real account and from CI');
} catch (err) {
  if (err.message !== 'demo failed') throw err;
} finally {
  rmSync(certDir, { recursive: true, force: true });
  if (!stopped) await server.close();
}
