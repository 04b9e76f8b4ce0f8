const REDACTED = '[REDACTED]';

/**
 * Returns a function that removes the API key from any text: the key itself wherever it appears, and
 * whatever follows `Bearer` (a service may echo the Authorization header back in an error body).
 */
export function makeRedactor(apiKey: string): (text: string) => string {
  return (text) => {
    let out = text;
    if (apiKey.length > 0) out = out.split(apiKey).join(REDACTED);
    return out.replace(/(bearer)(\s+|%20)(?!\[REDACTED\])[^\s"',;}\]]+/gi, `$1$2${REDACTED}`);
  };
}

/**
 * The secrets of one run (the API key, once it is read), and the one place everything accord prints
 * or saves passes through (src/cli/main.ts wraps stdout and stderr; the commands that write files
 * redact what they write). A service may return the key anywhere in resource data, so the text is
 * redacted where it leaves accord, not field by field where it was read; `accord export`, which
 * derives names from that data, also redacts the account before it derives anything.
 */
export class Secrets {
  /** Each secret as it can appear in output: as is, inside a JSON string, percent-encoded. */
  readonly #forms: string[] = [];
  #pattern: RegExp | undefined;

  add(secret: string): void {
    if (secret.length === 0) return;
    const forms = [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)];
    for (const form of forms) if (!this.#forms.includes(form)) this.#forms.push(form);
    // Longest first, so that no form is cut by a shorter one inside it.
    this.#forms.sort((a, b) => b.length - a.length);
    // In any letter case: what accord derives from data (an exported entry key) is lower-cased, and a
    // key in another case is still most of the secret.
    this.#pattern = new RegExp(this.#forms.map(escapeRegExp).join('|'), 'gi');
  }

  redact(text: string): string {
    return this.#pattern ? text.replace(this.#pattern, REDACTED) : text;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
