const REDACTED = '[REDACTED]';

/**
 * The shortest key accord takes for a real one: production keys are much longer, `accord serve` refuses
 * a shorter one, and the CLI warns when it is given one. Below it, a key is also short enough to occur
 * by chance in other text, so it is redacted only where it stands as a word of its own.
 */
export const MIN_API_KEY_LENGTH = 16;

/**
 * A terminal escape sequence (colour, clearing a line): never redacted, so that a short key that is also
 * its final letter (`\x1b[K`) does not cut it.
 */
const ESCAPE = '\\x1b\\[[0-9;?]*[ -/]*[@-~]';

/**
 * The pattern that finds `forms` (each form a secret takes in text) in any letter case: what accord
 * derives from data (an exported entry key) is lower-cased, and a key in another case is still most of
 * the secret. A form of a real key's length is found wherever it is: such a string is the key. A shorter
 * one only where no letter, digit or `_` touches it, so that it is never found inside a word or an ID
 * (`k` in `make` or `ipp_2k9`).
 */
function secretsPattern(forms: Form[]): RegExp | undefined {
  if (forms.length === 0) return undefined;
  // Longest first, so that no form is cut by a shorter one inside it.
  const alternatives = [...forms]
    .sort((a, b) => b.text.length - a.text.length)
    .map(({ text: form, anywhere }) => {
      const escaped = escapeRegExp(form);
      if (anywhere) return escaped;
      const before = /^\w/.test(form) ? '(?<!\\w)' : '';
      const after = /\w$/.test(form) ? '(?!\\w)' : '';
      return `${before}${escaped}${after}`;
    });
  return new RegExp(`(${ESCAPE})|${alternatives.join('|')}`, 'gi');
}

function redactWith(pattern: RegExp | undefined, text: string): string {
  return pattern ? text.replace(pattern, (_match, escapeCode?: string) => escapeCode ?? REDACTED) : text;
}

/** One form of a secret, and whether it is redacted wherever it occurs (the secret is a real key's length). */
interface Form {
  text: string;
  anywhere: boolean;
}

/** Each form a secret can take in output: as is, inside a JSON string, percent-encoded. */
function formsOf(secret: string): Form[] {
  const anywhere = secret.length >= MIN_API_KEY_LENGTH;
  const texts = new Set([secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)]);
  return [...texts].map((text) => ({ text, anywhere }));
}

/**
 * Returns a function that removes the API key from any text: the key itself wherever it appears (as
 * `Secrets` finds it), and whatever follows `Bearer` (a service may echo the Authorization header back
 * in an error body).
 */
export function makeRedactor(apiKey: string): (text: string) => string {
  const pattern = secretsPattern(apiKey.length > 0 ? formsOf(apiKey) : []);
  return (text) =>
    redactWith(pattern, text).replace(/(bearer)(\s+|%20)(?!\[REDACTED\])[^\s"',;}\]]+/gi, `$1$2${REDACTED}`);
}

/**
 * The secrets of one run (the API key, once it is read), and the one place everything accord prints
 * or saves passes through (src/cli/main.ts wraps stdout and stderr; the commands that write files
 * redact what they write). A service may return the key anywhere in resource data, so the text is
 * redacted where it leaves accord, not field by field where it was read; `accord export`, which
 * derives names from that data, also redacts the account before it derives anything.
 */
export class Secrets {
  readonly #forms: Form[] = [];
  #pattern: RegExp | undefined;

  add(secret: string): void {
    if (secret.length === 0) return;
    for (const form of formsOf(secret)) {
      if (!this.#forms.some((f) => f.text === form.text && f.anywhere === form.anywhere))
        this.#forms.push(form);
    }
    this.#pattern = secretsPattern(this.#forms);
  }

  redact(text: string): string {
    return redactWith(this.#pattern, text);
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
