// `accord serve --limits policies=N,rules_per_policy=N`: the account's limits of the local service,
// either or both, each once, each a whole number from 1 to 1,000,000; anything else is a usage error
// that shows the form.
import { describe, expect, it } from 'vitest';
import { parseLimits } from '../../src/cli/commands/serve.js';

describe('--limits', () => {
  it.each([
    ['policies=20', { policies: 20 }],
    ['rules_per_policy=50', { rulesPerPolicy: 50 }],
    ['policies=20,rules_per_policy=50', { policies: 20, rulesPerPolicy: 50 }],
    [' rules_per_policy=1 , policies=1000000', { policies: 1_000_000, rulesPerPolicy: 1 }],
  ])('reads %j', (value, limits) => {
    expect(parseLimits(value)).toEqual(limits);
  });

  it.each([
    ['policies', 'is not a limit'],
    ['policies=0', 'is not a limit'],
    ['policies=1000001', 'is not a limit'],
    ['policies=-1', 'is not a limit'],
    ['rules=5', 'is not a limit'],
    ['policies=2,', 'is not a limit'],
    ['policies=2,policies=3', 'sets policies twice'],
  ])('refuses %j', (value, part) => {
    expect(() => parseLimits(value)).toThrow(
      expect.objectContaining({ code: 'ACCORD_USAGE', message: expect.stringContaining(part) }),
    );
    if (part === 'is not a limit') {
      expect(() => parseLimits(value)).toThrow(/policies=N,rules_per_policy=N, either or both/);
    }
  });
});
