import type { Argv } from 'yargs';
import type { DesiredState } from '../../config/model.js';
import { count } from '../../plural.js';
import type { CommandFactory } from '../command.js';
import { desiredFileOption } from '../file-option.js';

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
        const resources = await import('../../resources/index.js');
        io.stdout(`${summary(argv.file, state, config, resources)}\n`);
        setExit(0);
      } catch (err) {
        if (!(err instanceof config.ConfigError)) throw err;
        for (const p of err.problems) io.stderr(`${config.formatProblem(p)}\n`);
        const n = err.problems.length;
        io.stderr(
          `${argv.file}: ${count(n, 'problem')} found; fix ${n === 1 ? 'it' : 'them'} and run accord validate again.\n`,
        );
        setExit(1);
      }
    },
  );

type ConfigModule = typeof import('../../config/index.js');
type ResourcesModule = typeof import('../../resources/index.js');

function summary(
  file: string,
  s: DesiredState,
  config: ConfigModule,
  { desiredOf, managedDescriptors, moduleDescriptors }: ResourcesModule,
): string {
  const counts = [
    ...managedDescriptors.map((d) => count(desiredOf(d, s).length, d.nouns.one, d.nouns.many)),
    ...moduleDescriptors.map((d) => count(desiredOf(d, s).length, d.nouns.one, d.nouns.many)),
  ];
  let tightest: { left: number; address: string } | undefined;
  for (const d of managedDescriptors) {
    for (const e of desiredOf(d, s)) {
      const left = config.entryBudgetLeft(s.owner, e.key, e.protect, e.data);
      if (!tightest || left < tightest.left) tightest = { left, address: `${d.section}.${e.key}` };
    }
  }
  const budget = tightest
    ? `; metadata budget: ${tightest.left} bytes left at the tightest (${tightest.address})`
    : '';
  return `${file} is valid: ${counts.join(', ')}; owner "${s.owner}"${budget}.`;
}
