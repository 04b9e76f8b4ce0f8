// An endpoint's URL (shared/SPEC-endpoints.md "The endpoint object"): `scheme://host[:port]` with a
// scheme of http, https, tls or tcp, a host name (its first label may be `*`), and a port that the
// scheme gives by default except for tcp. The derived fields (proto, scheme, host, port, hostport,
// public_url) come from it; `public_url` is also the URL's identity, so that
// `https://App.example.com:443` and `https://app.example.com` are one endpoint.
import { ServiceError } from './errors.js';

export interface EndpointUrl {
  scheme: string;
  /** Lower case. */
  host: string;
  port: number;
}

export const DEFAULT_PORTS: Record<string, number | undefined> = {
  http: 80,
  https: 443,
  tls: 443,
  tcp: undefined,
};
const SCHEMES = Object.keys(DEFAULT_PORTS);
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const FORM = 'write it as https://host, http://host, tls://host or tcp://host:port';

const clip = (text: string) => JSON.stringify(text.slice(0, 100));

/** Reads an endpoint URL; 400 with the production service's code for each way it can be wrong. */
export function readEndpointUrl(text: string, field = 'url'): EndpointUrl {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(.*)$/s.exec(text);
  const scheme = m?.[1]?.toLowerCase();
  if (!m || scheme === undefined || !SCHEMES.includes(scheme)) {
    const what = m ? `has the scheme "${m[1]?.slice(0, 20)}"` : 'has no scheme';
    throw new ServiceError('ERR_NGROK_18022', `field "${field}": ${clip(text)} ${what}; ${FORM}`);
  }
  const rest = m[2] ?? '';
  const hostport = /[/?#@\s[\]]/.test(rest) ? undefined : /^([^:]*)(?::(.*))?$/s.exec(rest);
  const host = (hostport?.[1] ?? '').toLowerCase();
  const labels = host.split('.');
  const validHost =
    host.length <= 253 &&
    !labels.every((label) => /^\d+$/.test(label)) &&
    labels.every((label, i) => LABEL.test(label) || (i === 0 && label === '*' && labels.length > 1));
  if (!hostport || !validHost) {
    throw new ServiceError(
      'ERR_NGROK_18001',
      `field "${field}": ${clip(text)} is not scheme://host[:port] with a host name (no path, query, user or ` +
        `IP address); ${FORM}`,
    );
  }
  const given = hostport[2];
  const port = given === undefined ? DEFAULT_PORTS[scheme] : /^\d{1,5}$/.test(given) ? Number(given) : 0;
  if (port === undefined || port < 1 || port > 65535) {
    const why =
      given === undefined ? `a ${scheme} URL needs a port` : 'its port must be a number from 1 to 65535';
    throw new ServiceError('ERR_NGROK_18003', `field "${field}": ${clip(text)}: ${why}; ${FORM}`);
  }
  return { scheme, host, port };
}

/** The fields of an endpoint that its URL gives. */
export function derivedFields(url: EndpointUrl) {
  const { scheme, host, port } = url;
  return {
    proto: scheme,
    scheme,
    host,
    port,
    hostport: `${host}:${port}`,
    public_url: publicUrl(url),
  };
}

/** `scheme://host`, with `:port` when it is not the scheme's default: the URL's identity. */
export function publicUrl({ scheme, host, port }: EndpointUrl): string {
  return `${scheme}://${host}${DEFAULT_PORTS[scheme] === port ? '' : `:${port}`}`;
}
