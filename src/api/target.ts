// Where the client's requests go: the API's origin and base path, the only place that receives the key.
import { RefusedRequestError } from './errors.js';
import { hasDotSegment } from './paths.js';

export class ApiTarget {
  readonly origin: string;
  readonly basePath: string;
  /** The origin and base path, without a trailing slash. */
  readonly baseUrl: string;
  readonly redact: (text: string) => string;

  constructor(baseUrl: string, redact: (text: string) => string) {
    const base = new URL(baseUrl);
    this.origin = base.origin;
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.baseUrl = this.origin + this.basePath;
    this.redact = redact;
  }

  /** The URL of a request path (or a full URL on the API's origin); any other is refused. */
  resolve(path: string): URL {
    if (!/^https?:\/\//i.test(path) && hasDotSegment(path)) {
      throw new RefusedRequestError(
        `Refusing the request path ${this.redact(path)}: a "." or ".." segment (or a backslash) would send ` +
          'it to another endpoint than the one it names. If it came from a plan file, make the plan again.',
      );
    }
    const url = /^https?:\/\//i.test(path) ? new URL(path) : new URL(this.basePath + path, this.origin);
    if (url.origin !== this.origin) {
      throw new RefusedRequestError(
        `Refusing to send the API key to ${this.redact(url.origin)}: only ${this.origin} (--api-url) receives it.`,
      );
    }
    return url;
  }

  /** A URL as messages show it: its path and query, without the key. */
  display(url: URL): string {
    return this.redact(url.pathname + url.search);
  }
}
