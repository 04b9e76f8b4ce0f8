// The scalars of the fast reader (plain-yaml.ts): one-line plain and quoted scalars, literal block
// scalars, and how a plain scalar resolves under the YAML 1.2 core schema. Like the reader, each reads
// exactly as the full parser does or throws UNSUPPORTED, never a guess.

/** A value read, where it starts, and its size. */
export interface Value {
  value: unknown;
  start: number;
  /** Values counted with every alias as a copy of its target (alias bombs are refused). */
  size: number;
}

/** Thrown inside the reader when the text is outside what it reads; never leaves readPlainYaml. */
export class Unsupported extends Error {}
export const UNSUPPORTED = new Unsupported();

const FLOW = ',[]{}';
/** A plain scalar in a flow collection runs to `,[]{}`, a line end, `: `, `:` before those, or ` #`. */
const FLOW_PLAIN = /(?:[^,[\]{}\n:#]|:(?![\s,[\]{}]|$)|(?<! )#)*/y;
const INDICATORS = '-?:,[]{}#&*!|>\'"%@`';
const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const INT = /^[-+]?[0-9]{1,15}$/;
// Other numbers of the core schema (floats, octal, hex, long integers): left to the full parser.
const OTHER_NUMBER =
  /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;

/** A plain scalar as the YAML 1.2 core schema resolves it. */
export function resolvePlain(s: string): unknown {
  const c = s.charCodeAt(0);
  if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90)) {
    // Most values are words: only null, true and false need a closer look.
    if ('nNtTfF'.includes(s[0]!)) {
      if (NULL.test(s)) return null;
      if (BOOL.test(s)) return s[0] === 't' || s[0] === 'T';
    }
    return s;
  }
  if ((c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46) {
    if (INT.test(s)) return Number(s);
    if (OTHER_NUMBER.test(s)) throw UNSUPPORTED;
    return s;
  }
  return NULL.test(s) ? null : s;
}

export function isSpaceOrEnd(c: string | undefined): boolean {
  return c === undefined || c === ' ' || c === '\n';
}

/** The offset of the line break that ends the line holding `p`, or the text's end. */
export function lineEnd(t: string, p: number): number {
  const nl = t.indexOf('\n', p);
  return nl < 0 ? t.length : nl;
}

/** A one-line scalar at `q`: quoted, or plain up to a comment or the line's end (in flow: `,[]{}`). */
export function readScalar(t: string, q: number, inFlow: boolean): Value & { end: number } {
  const c = t[q]!;
  if (c === "'") return singleQuoted(t, q);
  if (c === '"') {
    const close = t.indexOf('"', q + 1);
    const nl = t.indexOf('\n', q + 1);
    if (close < 0 || (nl >= 0 && nl < close)) throw UNSUPPORTED;
    const s = t.slice(q + 1, close);
    if (s.includes('\\')) throw UNSUPPORTED;
    return { value: s, start: q, size: 1, end: close + 1 };
  }
  if (INDICATORS.includes(c)) {
    // `-`, `?` and `:` may start a plain scalar when a safe character follows.
    const next = t[q + 1];
    if (!'-?:'.includes(c) || isSpaceOrEnd(next) || (inFlow && FLOW.includes(next!))) throw UNSUPPORTED;
  }
  let end: number;
  if (inFlow) {
    FLOW_PLAIN.lastIndex = q;
    FLOW_PLAIN.test(t);
    end = FLOW_PLAIN.lastIndex;
  } else {
    // Up to a comment or the line's end; `key: value` in a value is a nested mapping: an error.
    const line = t.slice(q, lineEnd(t, q));
    const comment = line.indexOf(' #');
    end = q + (comment < 0 ? line.length : comment);
    const colon = line.indexOf(': ');
    if (colon >= 0 && q + colon < end) throw UNSUPPORTED;
  }
  let last = end;
  while (t[last - 1] === ' ') last--;
  if (!inFlow && t[last - 1] === ':') throw UNSUPPORTED;
  const s = t.slice(q, last);
  return { value: resolvePlain(s), start: q, size: 1, end: last };
}

/** A single-quoted scalar at `q` that closes on its line (`''` is a quote). */
function singleQuoted(t: string, q: number): Value & { end: number } {
  let s = '';
  let p = q + 1;
  for (;;) {
    const close = t.indexOf("'", p);
    const nl = t.indexOf('\n', p);
    if (close < 0 || (nl >= 0 && nl < close)) throw UNSUPPORTED;
    s += t.slice(p, close);
    if (t[close + 1] !== "'") return { value: s, start: q, size: 1, end: close + 1 };
    s += "'";
    p = close + 2;
  }
}

/**
 * A literal block scalar (`|`, `|-`) whose header is at `q`, in a node indented by `indent`: its value,
 * and the start of the first line after it. `lineAt` is told the start of every line it visits.
 */
export function readLiteral(
  t: string,
  q: number,
  indent: number,
  lineAt: (start: number) => void,
): { value: string; next: number } {
  let p = q + 1;
  const strip = t[p] === '-';
  if (strip) p++;
  const headerEnd = lineEnd(t, p);
  const rest = t.slice(p, headerEnd);
  if (!/^(?: +#.*| *)$/.test(rest) || headerEnd >= t.length) throw UNSUPPORTED;
  const lines: string[] = [];
  let contentIndent = -1;
  let leadingBlank = 0;
  let lineStart = headerEnd + 1;
  while (lineStart < t.length) {
    lineAt(lineStart);
    const end = lineEnd(t, lineStart);
    let s = lineStart;
    while (t[s] === ' ') s++;
    const blank = s === end;
    if (contentIndent < 0) {
      if (blank) {
        leadingBlank = Math.max(leadingBlank, s - lineStart);
        lines.push('');
      } else {
        contentIndent = s - lineStart;
        if (contentIndent <= indent || leadingBlank > contentIndent) throw UNSUPPORTED;
        lines.push(t.slice(s, end));
      }
    } else if (blank) {
      if (s - lineStart > contentIndent) throw UNSUPPORTED;
      lines.push('');
    } else if (s - lineStart < contentIndent) {
      break;
    } else {
      lines.push(t.slice(lineStart + contentIndent, end));
    }
    if (end >= t.length) throw UNSUPPORTED; // no line break after the last line
    lineStart = end + 1;
  }
  if (contentIndent < 0) throw UNSUPPORTED;
  let n = lines.length;
  while (n > 0 && lines[n - 1] === '') n--;
  const body = lines.slice(0, n).join('\n');
  return { value: strip ? body : `${body}\n`, next: lineStart };
}
