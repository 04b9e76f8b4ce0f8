import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureIo } from '../support/cli.js';

const COMMANDS = ['init', 'validate', 'plan', 'apply', 'export', 'drift', 'schema', 'serve'];

/** Each option `accord COMMAND --help` lists, with the type it shows ([string], [number], [boolean]...). */
async function optionsOf(command: string): Promise<{ flag: string; short?: string; type: string }[]> {
  const io = captureIo();
  expect(await main([command, '--help'], io)).toBe(0);
  const options: { flag: string; short?: string; type: string }[] = [];
  for (const line of io.out.split('\n')) {
    const start = /^\s{2}(?:-(\w), )?\s*--([\w-]+)\s/.exec(line);
    if (start?.[2]) options.push({ flag: `--${start[2]}`, short: start[1], type: '' });
    const type = /\[(string|number|array|boolean|count)\]/.exec(line)?.[1];
    const last = options.at(-1);
    if (type && last && last.type === '') last.type = type;
  }
  return options;
}

async function refusal(argv: string[]): Promise<{ code: number; err: string; out: string }> {
  const io = captureIo({ ACCORD_API_URL: 'http://127.0.0.1:9', ACCORD_API_KEY: 'k' });
  // parseOnly: an option that slipped through would run nothing and exit 0, which fails the test.
  const code = await main(argv, io, { parseOnly: true });
  return { code, err: io.err, out: io.out };
}

describe('an option given without its value', () => {
  it.each([
    [['plan', '--out'], '--out'],
    [['plan', '-f'], '-f (--file)'],
    [['plan', '--target'], '--target'],
    [['apply', '--cert-dir'], '--cert-dir'],
    [['export', '-o'], '-o (--output)'],
    [['export', '--edges'], '--edges'],
    [['export', '--split'], '--split'],
    [['serve', '--port'], '--port'],
    [['plan', '--api-url', '--json'], '--api-url'],
    [['plan', '--timeout', '--', 'x'], '--timeout'],
  ])('%j is one usage paragraph naming the option, no trace', async (argv, said) => {
    const { code, err } = await refusal(argv);
    expect(code).toBe(1);
    expect(err).toMatch(new RegExp(`^Error: ${said.replace(/[()]/g, '\\$&')} was given without a value\\. `));
    expect(err).toContain(`see accord ${argv[0]} --help.`);
    expect(err).not.toContain('unexpected error');
    expect(err.trimEnd().split('\n')).toHaveLength(1);
  });

  it('a bare --api-url says to leave it out to use $ACCORD_API_URL, rather than that there is no URL', async () => {
    const { err } = await refusal(['plan', '--api-url']);
    expect(err).toContain('--api-url: Base URL of the API (default: $ACCORD_API_URL).');
    expect(err).toContain('or leave the option out');
  });

  it('a value that starts with a dash is still a value where it is a negative number', async () => {
    const { code, err } = await refusal(['serve', '--latency', '-5']);
    // Not "without a value": the option's own check judges it (after parsing, so parseOnly exits 0).
    expect(err).not.toContain('without a value');
    expect(code).toBe(0);
  });

  it('property: every option of every command that takes a value, given none, is a usage error', async () => {
    const all: { command: string; flag: string; typed: string }[] = [];
    for (const command of COMMANDS) {
      for (const o of await optionsOf(command)) {
        if (o.type === 'boolean' || o.type === 'count' || o.type === '') continue;
        all.push({ command, flag: o.flag, typed: o.flag });
        if (o.short) all.push({ command, flag: o.flag, typed: `-${o.short}` });
      }
    }
    // The list is what --help shows; a parse of it that found nothing would make this vacuous.
    expect(all.length).toBeGreaterThan(25);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...all),
        fc.constantFrom<string[]>([], ['--json'], ['--verbose'], ['--', 'x']),
        async ({ command, flag, typed }, after) => {
          const { code, err } = await refusal([command, typed, ...after]);
          expect(code).toBe(1);
          expect(err).toContain(`was given without a value. ${flag}: `);
          expect(err).not.toContain('unexpected error');
        },
      ),
      { numRuns: 150 },
    );
  });
});
