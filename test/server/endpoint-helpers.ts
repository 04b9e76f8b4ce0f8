// A service seeded for the endpoint tests: IP policies that allow, only deny, or hold nothing, and two
// agent endpoints (one whose traffic policy names the allowing policy).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { ServerOptions } from '../../src/server/index.js';
import { type Api, startApi } from './helpers.js';

const fixed = (prefix: string, name: string) => `${prefix}_${name.padEnd(27, '0')}`;

export const ALLOWS = fixed('ipp', '2epAllows');
export const DENIES = fixed('ipp', '2epDenies');
export const EMPTY = fixed('ipp', '2epEmpty');
export const AGENT_WEB = fixed('ep', '2agentWeb');
export const AGENT_TCP = fixed('ep', '2agentTcp');

export const SEED_TEXT = `
ip_policies:
  - id: ${ALLOWS}
    description: allows
    rules:
      - { id: ${fixed('ipr', '2epAllows')}, action: allow, cidr: 203.0.113.0/24 }
  - id: ${DENIES}
    description: only denies
    rules:
      - { id: ${fixed('ipr', '2epDenies')}, action: deny, cidr: 198.51.100.0/24 }
  - id: ${EMPTY}
    description: no rules
endpoints:
  - id: ${AGENT_WEB}
    type: agent
    url: https://web.example.com
    upstream_url: http://localhost:8080
    upstream_protocol: http1
    region: eu
    traffic_policy: |
      on_http_request:
        - actions:
            - type: restrict-ips
              config:
                ip_policies: [${ALLOWS}]
  - id: ${AGENT_TCP}
    type: agent
    url: tcp://1.tcp.example.com:20001
`;

/** A seeded service for the tests of the file; `api` is set in beforeAll. */
export function useEndpointApi(opts: ServerOptions = {}): { readonly api: Api } {
  let api: Api | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'accord-endpoints-'));
  beforeAll(async () => {
    const seed = join(dir, 'seed.yaml');
    writeFileSync(seed, SEED_TEXT);
    api = await startApi({ ...opts, seed });
  });
  afterAll(async () => {
    await api?.server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    get api() {
      if (!api) throw new Error('the service starts in beforeAll');
      return api;
    },
  };
}

/** A traffic policy (YAML) with one restrict-ips action on connect, of the given config. */
export function restrictIps(config: Record<string, unknown>, phase = 'on_tcp_connect'): string {
  return `${phase}:\n  - actions:\n      - type: restrict-ips\n        config: ${JSON.stringify(config)}\n`;
}
