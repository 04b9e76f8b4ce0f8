import type { Argv } from 'yargs';
import type { DesiredState } from '../../config/model.js';
import { desiredFileOption } from '../file-option.js';
import type { CommandFactory } from '../main.js';

export const validateCommand: CommandFactory = (io, setExit) => (y: Argv) =>
  y.command(
    'validate',
    'Check a desired-state file (syntax, schema, certificates, keys, limits) without contacting the API',
    (b) =>
      b
        .option('file', desiredFileOption)
        .example('accord validate', 'check ./accord.yaml')
        .example('accord validate -f infra/accord.yaml', 'check another file'),
    async (argv) => {
      // Loaded on use: other commands should not pay for ajv and yaml, nor this one for theirs.
      const config = await import('../../config/index.js');
      try {
        const state = await config.loadDesiredState(argv.file, io.cwd);
        io.stdout(`${summary(argv.file, state, config)}\n`);
        setExit(0);
      } catch (err) {
        if (!(err instanceof config.ConfigError)) throw err;
        for (const p of err.problems) io.stderr(`${config.formatProblem(p)}\n`);
        const n = err.problems.length;
        io.stderr(
          `${argv.file}: ${n === 1 ? '1 problem found; fix it' : `${n} problems found; fix them`} and run accord validate again.\n`,
        );
        setExit(1);
      }
    },
  );

type ConfigModule = typeof import('../../config/index.js');

function summary(file: string, s: DesiredState, config: ConfigModule): string {
  const counts = [
    count(s.ip_restrictions.length, 'IP restriction'),
    count(s.certificate_authorities.length, 'certificate authority', 'certificate authorities'),
    count(s.ssh_host_certificates.length, 'SSH host certificate'),
    count(s.tcp_edge_ip_restrictions.length, 'TCP edge IP restriction module'),
    count(s.websocket_tcp_converters.length, 'websocket TCP converter module'),
  ];
  let tightest: { left: number; address: string } | undefined;
  const sections = [
    ['ip_restrictions', s.ip_restrictions],
    ['certificate_authorities', s.certificate_authorities],
    ['ssh_host_certificates', s.ssh_host_certificates],
  ] as const;
  for (const [section, list] of sections) {
    for (const e of list) {
      const left = config.entryBudgetLeft(s.owner, e.key, e.protect, e.data);
      if (!tightest || left < tightest.left) tightest = { left, address: `${section}.${e.key}` };
    }
  }
  const budget = tightest
    ? `; metadata budget: ${tightest.left} bytes left at the tightest (${tightest.address})`
    : '';
  return `${file} is valid: ${counts.join(', ')}; owner "${s.owner}"${budget}.`;
}

function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
