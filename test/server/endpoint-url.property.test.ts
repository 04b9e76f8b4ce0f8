// An endpoint URL's identity (src/server/endpoint-url.ts): the one cloud endpoint per URL rule and the
// `urls` filter compare it, so every spelling of one scheme, host and port must read as the same.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PORTS, publicUrl, readEndpointUrl } from '../../src/server/endpoint-url.js';

const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/).filter((l) => !/^\d+$/.test(l));
const url = fc.record({
  scheme: fc.constantFrom('http', 'https', 'tls', 'tcp'),
  host: fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => [...labels, 'example'].join('.')),
  port: fc.integer({ min: 1, max: 65535 }),
});
const mixedCase = (text: string, flips: boolean[]) =>
  [...text].map((c, i) => (flips[i % flips.length] ? c.toUpperCase() : c)).join('');

describe('endpoint URL identity', () => {
  it('reads public_url back as itself, and every spelling of a URL as one identity', () => {
    fc.assert(
      fc.property(
        url,
        fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        (u, flips, explicit) => {
          const identity = publicUrl(u);
          expect(readEndpointUrl(identity)).toEqual(u);
          const defaulted = DEFAULT_PORTS[u.scheme] === u.port;
          const port = explicit || !defaulted ? `:${u.port}` : '';
          const spelled = `${mixedCase(u.scheme, flips)}://${mixedCase(u.host, flips)}${port}`;
          expect(publicUrl(readEndpointUrl(spelled))).toBe(identity);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('tells different ports, hosts or schemes apart', () => {
    fc.assert(
      fc.property(url, url, (a, b) => {
        const same = a.scheme === b.scheme && a.host === b.host && a.port === b.port;
        expect(publicUrl(a) === publicUrl(b)).toBe(same);
      }),
    );
  });
});
