// The local service for tests: in-process on a random port, seeded with examples/seed.yaml.
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { type RunningServer, type ServerOptions, startServer } from '../../src/server/index.js';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const CLI = join(ROOT, 'bin', 'accord.js');
export const SEED = join(ROOT, 'examples', 'seed.yaml');
export const EXAMPLE = join(ROOT, 'examples', 'accord.yaml');

// Fixed IDs of examples/seed.yaml.
export const OFFICE = 'ipp_2demoOffice0000000000000000';
export const VPN = 'ipp_2demoVpn0000000000000000000';
export const HOST_CA = 'sshca_2demoHostCA0000000000000000';
export const TCP_EDGE = 'edgtcp_2demoDb00000000000000000000';
export const HTTPS_EDGE = 'edghts_2demoWeb0000000000000000000';
export const WS_ROUTE = 'edghtsrt_2demoWebSocket0000000000000';

/** `accord serve` in-process on port 0 with one API key and the example seed (overridable). */
export function serveSeeded(apiKey: string, opts: ServerOptions = {}): Promise<RunningServer> {
  return startServer({ port: 0, apiKeys: [apiKey], seed: SEED, ...opts });
}

/**
 * For the tests of the enclosing describe (or file): a seeded service started before them and closed
 * after them. Read `.url` inside a test or hook.
 */
export function useSeededService(apiKey: string, opts: ServerOptions = {}): { readonly url: string } {
  let server: RunningServer | undefined;
  beforeAll(async () => {
    server = await serveSeeded(apiKey, opts);
  });
  afterAll(async () => {
    await server?.close();
  });
  return {
    get url() {
      if (!server) throw new Error('the seeded service starts in beforeAll: read its url inside a test');
      return server.url;
    },
  };
}
