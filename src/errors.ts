/**
 * The base of every error accord expects. The CLI's one top-level catch prints `message` (one paragraph:
 * what, where, what to do) and exits with `exitCode`; anything that is not an AccordError is a bug and
 * shows its stack.
 *
 * Every subclass declares its own `static code` (`ACCORD_...`, listed in docs/cli.md): the name programs
 * match in `--json` output, which stays when the wording of a message changes. test/errors.test.ts finds
 * every subclass and fails for one without its own code or without its line in the docs.
 */
export class AccordError extends Error {
  static readonly code: string = 'ACCORD_ERROR';
  override name = 'AccordError';
  readonly exitCode: number = 1;
  /** The class's stable code, on the instance as undici has it (`err.code`). */
  readonly code: string;

  constructor(message?: string, options?: ErrorOptions) {
    super(message, options);
    this.code = (new.target as typeof AccordError).code;
  }

  /** What `--json` output says of this error; subclasses add their own fields. */
  report(): ErrorReport {
    return { code: this.code, message: this.message };
  }
}

/** The code of an error accord did not expect (a bug): its message is reported as it is. */
export const INTERNAL_ERROR_CODE = 'ACCORD_INTERNAL';

/** An error as `--json` output shows it: never a bare string. */
export interface ErrorReport {
  code: string;
  message: string;
  /** The HTTP status of the answer, for an error answer of the API. */
  http_status?: number;
  /** The service's own `error_code`, when its answer had one. */
  error_code?: string;
  /** The service's operation id, to quote when reporting a failure to the service's operator. */
  operation_id?: string;
  /** For a file that cannot be used: every problem, as `accord validate` lists them. */
  problems?: { file: string; line: number; col: number; path: string; message: string }[];
  /** For files and an account that cannot be planned together: each problem's code and sentence. */
  plan_problems?: { code: string; message: string }[];
}

export function errorReport(err: unknown): ErrorReport {
  if (err instanceof AccordError) return err.report();
  return { code: INTERNAL_ERROR_CODE, message: err instanceof Error ? err.message : String(err) };
}
