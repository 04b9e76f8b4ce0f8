import { AccordError, type ErrorReport } from '../errors.js';
import { count } from '../plural.js';

/** One thing wrong with a desired-state file, located for an editor: `FILE:LINE:COL: path: message`. */
export interface Problem {
  /** The file as the user named it. */
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based, in characters. */
  col: number;
  /** Dotted path of the offending node (`ip_restrictions.office.type`); "" for the file as a whole. */
  path: string;
  message: string;
}

export function formatProblem(p: Problem): string {
  return `${p.file}:${p.line}:${p.col}: ${p.path ? `${p.path}: ` : ''}${p.message}`;
}

/** A desired-state file that cannot be used; carries every problem found, in file order. */
export class ConfigError extends AccordError {
  override name = 'ConfigError';
  static override readonly code = 'ACCORD_CONFIG';
  readonly problems: Problem[];

  constructor(problems: Problem[]) {
    const sorted = [...problems].sort((a, b) => a.line - b.line || a.col - b.col);
    super(
      `${sorted[0]?.file ?? 'the file'} has ${count(sorted.length, 'problem')}:\n${sorted.map(formatProblem).join('\n')}`,
    );
    this.problems = sorted;
  }

  override report(): ErrorReport {
    return { ...super.report(), problems: this.problems.map((p) => ({ ...p })) };
  }
}

/** Dotted display path: `ip_restrictions.office.ip_policies[0]`. */
export function displayPath(segments: readonly (string | number)[]): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else out += out ? `.${s}` : s;
  }
  return out;
}
