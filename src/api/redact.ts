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
