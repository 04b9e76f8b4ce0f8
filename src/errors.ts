/**
 * The base of every error accord expects. The CLI's one top-level catch prints `message` (one paragraph:
 * what, where, what to do) and exits with `exitCode`; anything that is not an AccordError is a bug and
 * shows its stack.
 */
export class AccordError extends Error {
  override name = 'AccordError';
  readonly exitCode: number = 1;
}
