import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { captureIo } from '../support/cli.js';

describe('option values, for every command', () => {
  it.each([
    [['plan', '--parallelism', 'abc'], 'Error: --parallelism must be a number, got "abc".\n'],
    [['apply', '--max-destroy-percent=lots'], 'Error: --max-destroy-percent must be a number, got "lots".\n'],
    [
      ['serve', '--port', '0', '--port', '99999'],
      'Error: --port was given more than once (0, 99999); give it once.\n',
    ],
    [
      ['export', '-o', 'a.yaml', '-o', 'b.yaml'],
      'Error: --output was given more than once (a.yaml, b.yaml); give it once.\n',
    ],
    [['plan', '--bogus'], 'Error: unknown option --bogus; see accord plan --help for what it accepts.\n'],
    [
      ['plan', '--detailed-exitcod'],
      'Error: unknown option --detailed-exitcod; did you mean --detailed-exitcode? See accord plan --help for what it accepts.\n',
    ],
    [
      ['plan', '--tagret', 'ip_restrictions.office'],
      'Error: unknown option --tagret; did you mean --target? See accord plan --help for what it accepts.\n',
    ],
    [
      ['apply', '--auto-aprove'],
      'Error: unknown option --auto-aprove; did you mean --auto-approve? See accord apply --help for what it accepts.\n',
    ],
    [
      ['export', '--include-manged', '--bogus'],
      'Error: unknown option --include-manged; did you mean --include-managed?; unknown option --bogus; see accord export --help for what it accepts.\n',
    ],
    [['pln'], 'Error: unknown command "pln"; did you mean "plan"? See accord --help.\n'],
    [['frobnicate'], 'Error: unknown command "frobnicate"; see accord --help for the list of commands.\n'],
    [
      ['validate', 'extra', '--nope=1'],
      'Error: unknown option --nope; unexpected argument "extra"; see accord validate --help for what it accepts.\n',
    ],
    [
      ['plan', '-detailed-exitcode'],
      'Error: unknown option -detailed-exitcode: long options take two dashes; did you mean --detailed-exitcode? See accord plan --help for what it accepts.\n',
    ],
    [
      ['plan', '-frobnicate'],
      'Error: unknown option -frobnicate: long options take two dashes, and accord plan has no --frobnicate either; see accord plan --help for what it accepts.\n',
    ],
    [
      ['completion', 'fish'],
      'Error: accord completion: the shell must be bash or zsh, got "fish"; see accord completion --help.\n',
    ],
    [
      ['plan', '--json', '--markdown'],
      'Error: --json and --markdown cannot be given together; give one of them (see accord plan --help).\n',
    ],
  ])('%j is refused before anything runs', async (argv, message) => {
    const io = captureIo();
    expect(await main(argv, io)).toBe(1);
    expect(io.err).toBe(message);
    if (!argv.includes('--json')) expect(io.out).toBe('');
  });
});

describe('completion', () => {
  it.each([
    ['bash', 'complete -o bashdefault -o default -F _accord_yargs_completions accord'],
    ['zsh', 'compdef _accord_yargs_completions accord'],
  ])('accord completion %s prints the script for that shell', async (shell, line) => {
    const io = captureIo({ SHELL: '/bin/sh' });
    expect(await main(['completion', shell], io)).toBe(0);
    expect(io.out).toContain(line);
    expect(io.out).toContain('accord --get-yargs-completions');
    expect(io.err).toBe('');
  });

  it('without a shell named, the one in $SHELL', async () => {
    const io = captureIo({ SHELL: '/usr/bin/zsh' });
    expect(await main(['completion'], io)).toBe(0);
    expect(io.out).toMatch(/^#compdef accord/);
  });

  it('offers every command, reach among them, and reach its own options', async () => {
    const commands = captureIo();
    expect(await main(['--get-yargs-completions', 'accord', ''], commands)).toBe(0);
    expect(commands.out.split('\n')).toEqual(expect.arrayContaining(['plan', 'drift', 'reach']));
    const reach = captureIo();
    expect(await main(['--get-yargs-completions', 'accord', 'reach', '--'], reach)).toBe(0);
    expect(reach.out.split('\n')).toEqual(expect.arrayContaining(['--file', '--json', '--api-url']));
  });

  it('offers the long options of the command, never a one-letter alias as --f', async () => {
    const io = captureIo();
    expect(await main(['--get-yargs-completions', 'accord', 'plan', '--'], io)).toBe(0);
    const offered = io.out.split('\n').filter(Boolean);
    expect(offered).toEqual(
      expect.arrayContaining(['--file', '--detailed-exitcode', '--target', '--deadline']),
    );
    expect(offered.filter((o) => /^--.$/.test(o))).toEqual([]);
  });
});

describe('after --, every word is an argument: placed as if typed before --, or refused', () => {
  const addressError = (word: string, extra = '') =>
    `Error: "${word}" is not an IPv4 or IPv6 address; give one such as 203.0.113.7 or 2001:db8::1 (no port, no zone, no host name)${extra}.\n`;
  it.each([
    [['reach', '--', '-1', '-f', 'nowhere.yaml'], addressError('-1')],
    [['reach', '10.1.2.3', '--', '1e3'], addressError('1e3')],
    [
      ['reach', '--', '10.1.2.3', '-f', 'nowhere.yaml'],
      addressError('-f', '; after -- every word is an address: put options before --'),
    ],
    [
      ['reach', '--', '10.0.0.0/8'],
      'Error: "10.0.0.0/8" is a range, not an address; accord reach explains one address at a time: give one, such as 10.0.0.0.\n',
    ],
    [
      ['apply', '--', 'no-such.plan'],
      'Error: no-such.plan does not exist; give a plan saved by accord plan --out FILE.\n',
    ],
    [
      ['apply', 'a.plan', '--', 'b.plan'],
      'Error: unexpected argument "b.plan" after --; see accord apply --help for what it accepts.\n',
    ],
    [
      ['plan', '--', 'accord.yaml'],
      'Error: unexpected argument "accord.yaml" after --; see accord plan --help for what it accepts.\n',
    ],
    [
      ['completion', '--', 'fish'],
      'Error: "fish" (after --) is not a shell accord completion knows; give one of bash, zsh.\n',
    ],
  ])('%j', async (argv, message) => {
    const io = captureIo();
    expect(await main(argv, io)).toBe(1);
    expect(io.err).toBe(message);
    expect(io.out).toBe('');
  });

  it('--json after -- is an address, not the option', async () => {
    const io = captureIo();
    expect(await main(['reach', '--', '--json'], io)).toBe(1);
    expect(io.err).toBe(
      'Error: "--json" is not an IPv4 or IPv6 address; give one such as 203.0.113.7 or 2001:db8::1 (no port, no zone, no host name); after -- every word is an address: put options before --.\n',
    );
    expect(io.out).toBe('');
  });

  it('a word after -- fills the argument it would fill before --', async () => {
    const io = captureIo({ SHELL: '/bin/sh' });
    expect(await main(['completion', '--', 'zsh'], io)).toBe(0);
    expect(io.out).toMatch(/^#compdef accord/);
  });
});
