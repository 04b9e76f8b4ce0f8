// An unmarked resource's `metadata` string as the `data` adoption keeps (DESIGN §2): JSON objects and
// arrays become data, anything else stays the string it was. The planner compares an adopted entry's
// metadata with this, and `accord export` writes this, so an export adopts without a metadata change.

/**
 * The metadata as `data`; undefined when unset or "". JSON is turned into data only
 * when that keeps it exactly (same values once whitespace is ignored, numbers JSON stores exactly,
 * no keys YAML files may not hold); otherwise the string is kept as it is.
 */
export function unmarkedData(raw: unknown): unknown {
  if (typeof raw !== 'string' || raw === '') return undefined;
  const first = raw.trimStart()[0];
  if (first !== '{' && first !== '[') return raw;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return raw;
  }
  return isPlainJson(parsed) && JSON.stringify(parsed) === minifyJson(raw) ? parsed : raw;
}

/** Values that go through YAML and back to the same JSON (the loader refuses the others). */
export function isPlainJson(v: unknown): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v) && (!Number.isInteger(v) || Number.isSafeInteger(v));
  if (Array.isArray(v)) return v.every(isPlainJson);
  if (typeof v === 'object') {
    return Object.entries(v).every(([k, item]) => k !== '__proto__' && isPlainJson(item));
  }
  return false;
}

/** JSON text without the whitespace between tokens. */
function minifyJson(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c !== ' ' && c !== '\t' && c !== '\n' && c !== '\r') out += c;
  }
  return out;
}
