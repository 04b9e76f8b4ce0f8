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
      ['validate', 'extra', '--nope=1'],
      'Error: unknown option --nope; unexpected argument "extra"; see accord validate --help for what it accepts.\n',
    ],
  ])('%j is refused before anything runs', async (argv, message) => {
    const io = captureIo();
    expect(await main(argv, io)).toBe(1);
    expect(io.err).toBe(message);
    expect(io.out).toBe('');
  });
});
