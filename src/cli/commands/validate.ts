import type { Argv } from 'yargs';
import type { DesiredState } from '../../config/model.js';
import { desiredPaths } from '../../config/paths.js';
import { count } from '../../plural.js';
import type { CommandFactory } from '../command.js';
import { desiredFileOption } from '../file-option.js';
import type { Io } from '../io.js';
import { EXIT_REFUSED } from './plan.js';

export const validateCommand: CommandFactory = (io, setExit) => (y: Argv) =>
  y.command(
    'validate',
    'Check desired-state files (syntax, schema, certificates, keys, limits) without contacting the API',
    (b) =>
      b
        .option('file', desiredFileOption)
        .example('accord validate', 'check ./accord.yaml')
        .example('accord validate -f infra/accord.yaml', 'check another file')
        .example(
          'accord validate -f accord/shared -f accord/production.yaml',
          'check a directory of shared files and one environment as one desired state',
        ),
    async (argv) => {
      const paths = desiredPaths(argv.file, io.env);
      // Loaded on use: other commands should not pay for ajv and yaml, nor this one for theirs.
      const config = await import('../../config/index.js');
      try {
        const state = await config.loadDesiredState(paths, io.cwd);
        const resources = await import('../../resources/index.js');
        const { entryBudgetLeft } = await import('../../resources/marker.js');
        io.stdout(summary(paths, state, entryBudgetLeft, resources));
        setExit(await checkGuards(state, io));
      } catch (err) {
        if (!(err instanceof config.ConfigError)) throw err;
        for (const p of err.problems) io.stderr(`${config.formatProblem(p)}\n`);
        const n = err.problems.length;
        io.stderr(
          `${paths.join(', ')}: ${count(n, 'problem')} found; fix ${n === 1 ? 'it' : 'them'} and run accord validate again.\n`,
        );
        setExit(1);
      }
    },
  );

type ResourcesModule = typeof import('../../resources/index.js');

/**
 * One line for one file named as such; for several files (or a directory), a line per file with what
 * it holds, then the line for the whole desired state.
 */
function summary(
  paths: readonly string[],
  s: DesiredState,
  budgetLeft: typeof import('../../resources/marker.js').entryBudgetLeft,
  { desiredOf, entryAddress, managedDescriptors, moduleDescriptors }: ResourcesModule,
): string {
  const kinds = [
    ...managedDescriptors.map((d) => ({ nouns: d.nouns, entries: desiredOf(d, s) })),
    ...moduleDescriptors.map((d) => ({ nouns: d.nouns, entries: desiredOf(d, s) })),
  ];
  const counts = kinds.map((k) => count(k.entries.length, k.nouns.one, k.nouns.many));
  let tightest: { left: number; address: string } | undefined;
  for (const d of managedDescriptors) {
    for (const e of desiredOf(d, s)) {
      const left = budgetLeft(s.owner, e.key, e.protect, e.data);
      if (!tightest || left < tightest.left) tightest = { left, address: entryAddress(d, e.key) };
    }
  }
  const budget = tightest
    ? `; metadata budget: ${tightest.left} bytes left at the tightest (${tightest.address})`
    : '';
  const whole = `${counts.join(', ')}; owner "${s.owner}"${budget}.`;
  const [only] = s.files;
  if (s.files.length === 1 && only && paths.length === 1 && paths[0] === only.shown) {
    return `${only.shown} is valid: ${whole}\n`;
  }
  const perFile = s.files.map((f) => {
    const held = kinds
      .map((k) => ({ n: k.entries.filter((e) => e.loc.file === f.shown).length, nouns: k.nouns }))
      .filter((k) => k.n > 0)
      .map((k) => count(k.n, k.nouns.one, k.nouns.many));
    return `${f.shown}: ${held.length > 0 ? held.join(', ') : 'no entries'}\n`;
  });
  const n = s.files.length;
  return `${perFile.join('')}${n === 1 ? '1 file is' : `${n} files are`} valid: ${whole}\n`;
}

/**
 * The guards, on the scopes the files alone determine (DESIGN §1 "Guards"); the others are left to
 * plan, which reads the account. A breach is exit 3, as plan refuses it.
 */
async function checkGuards(state: DesiredState, io: Io): Promise<number> {
  const guards = state.guards ?? [];
  if (guards.length === 0) return 0;
  const { filesPicture, scopeStates } = await import('../../traffic/governance.js');
  const { guardBreaches } = await import('../../traffic/guards.js');
  const { describeBreach } = await import('../../render/guards.js');
  const { picture, determined, undetermined } = filesPicture(state);
  const guarded = (scope: string) => guards.some((g) => g.scope === 'all' || g.scope === scope);
  const checked = scopeStates(picture, picture, determined.filter(guarded));
  const left = undetermined.filter((u) => guarded(u.scope));
  const breaches = guardBreaches(guards, checked, 'after');
  const leftText =
    left.length > 0
      ? `; left to accord plan, which reads the account: ${left.map((u) => `${u.scope} (${u.why})`).join('; ')}`
      : '';
  io.stdout(`Guards: ${count(checked.length, 'scope')} checked on the files alone${leftText}.\n`);
  if (breaches.length === 0) return 0;
  for (const b of breaches) io.stderr(`${describeBreach(b, 'would')}\n`);
  io.stderr(
    `${count(breaches.length, 'guard breach', 'guard breaches')}: applying these files would break their guards; change the rules, or the guard in its file.\n`,
  );
  return EXIT_REFUSED;
}
