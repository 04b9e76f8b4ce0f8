import type { Argv } from 'yargs';
import type { CommandFactory } from '../command.js';

/** `accord schema`: the JSON Schema of the desired-state file (or, with --plan, of a saved plan). */
export const schemaCommand: CommandFactory = (io, setExit) => (y: Argv) =>
  y.command(
    'schema',
    "Print the desired-state file's JSON Schema, for editors and other tools",
    (b) =>
      b
        .option('plan', {
          type: 'boolean',
          default: false,
          describe: 'Print the JSON Schema of a saved plan (plan --out, plan --json) instead',
        })
        .example(
          'accord schema > accord.schema.json',
          'keep a copy beside accord.yaml for its $schema comment',
        )
        .example('accord schema --plan > plan.schema.json', 'the schema of plan --json'),
    async (argv) => {
      const { schemaText } = await import('../../config/schema-file.js');
      io.stdout(schemaText(argv.plan ? 'plan' : 'desired'));
      setExit(0);
    },
  );
