import { AccordError, type ErrorReport } from '../errors.js';
import { count } from '../plural.js';

/**
 * One thing wrong with a desired-state file, located for an editor: `FILE:LINE:COL: path: message`
 * (`FILE: message` for what has no line: a directory without YAML files).
 */
export interface Problem {
  /** The file as the user named it. */
  file: string;
  /** 1-based; 0 when the problem is with the path itself, not with a line of a file. */
  line: number;
  /** 1-based, in characters; 0 with line 0. */
  col: number;
  /** Dotted path of the offending node (`ip_restrictions.office.type`); "" for the file as a whole. */
  path: string;
  message: string;
}

export function formatProblem(p: Problem): string {
  const at = p.line > 0 ? `${p.file}:${p.line}:${p.col}` : p.file;
  return `${at}: ${p.path ? `${p.path}: ` : ''}${p.message}`;
}

/**
 * Desired-state files that cannot be used; carries every problem found, file by file (in the order
 * the files first appear among the problems), each file's in line order.
 */
export class ConfigError extends AccordError {
  override name = 'ConfigError';
  static override readonly code = 'ACCORD_CONFIG';
  readonly problems: Problem[];

  constructor(problems: Problem[]) {
    const files = [...new Set(problems.map((p) => p.file))];
    const sorted = [...problems].sort(
      (a, b) => files.indexOf(a.file) - files.indexOf(b.file) || a.line - b.line || a.col - b.col,
    );
    const which =
      files.length > 1 ? `the ${files.length} desired-state files have` : `${files[0] ?? 'the file'} has`;
    super(`${which} ${count(sorted.length, 'problem')}:\n${sorted.map(formatProblem).join('\n')}`);
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
