// Endpoint reach against `accord serve`, read back after every write: files of IP policies, the
// account-wide `endpoints` restriction and cloud endpoints whose traffic policies name those policies;
// an apply in-process (the planner and executor of the CLI) through a client that lets other requests
// overtake each write and can fail one; and an independent model of what each endpoint lets in, from
// the service's own lists (never accord's reach code).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ApiClient } from '../../src/api/client.js';
import { ApiError } from '../../src/api/errors.js';
import { applyPlan } from '../../src/apply/executor.js';
import type { ApplyClient } from '../../src/apply/types.js';
import { planAgainstAccount } from '../../src/cli/planning.js';
import { loadDesiredState } from '../../src/config/index.js';
import { cidrContains, isCidrProblem, parseCidr } from '../../src/net/cidr.js';
import type { Plan } from '../../src/plan/types.js';
import { type RunningServer, startServer } from '../../src/server/index.js';

export const KEY = 'endpoint-serve-key-0123';
export const ADDRESSES = [
  '10.1.2.3',
  '10.1.9.9',
  '10.2.0.1',
  '172.16.0.5',
  '172.20.1.1',
  '192.0.2.7',
  '2001:db8::1',
];
export const CIDRS = [
  '10.0.0.0/8',
  '10.1.0.0/16',
  '10.1.2.0/24',
  '172.16.0.0/12',
  '172.16.0.0/16',
  '0.0.0.0/0',
  '2001:db8::/32',
];

export interface Rules {
  allow: string[];
  deny: string[];
}
/** One side of a scenario: policies by key, the `endpoints` restriction, endpoints by key. */
export interface Side {
  policies: Record<string, Rules>;
  /** The account-wide restriction's policies (enforced); undefined: none. */
  restriction?: string[];
  /** Each endpoint: the policies its restrict-ips names (undefined: no restrict-ips). */
  endpoints: Record<string, string[] | undefined>;
}

const urlOf = (key: string) => `https://${key}.example.com`;

/** The file of a side, as YAML. */
export function fileOf(side: Side): string {
  const lines = ['version: 1', 'owner: probe'];
  const policies = Object.entries(side.policies);
  if (policies.length > 0) lines.push('ip_policies:');
  for (const [key, rules] of policies) {
    lines.push(`  ${key}:`, '    rules:');
    for (const c of rules.allow) lines.push(`      - allow: ${c}`);
    for (const c of rules.deny) lines.push(`      - deny: ${c}`);
    if (rules.allow.length + rules.deny.length === 0) lines.splice(-1, 1, '    rules: []');
  }
  if (side.restriction)
    lines.push(
      'ip_restrictions:',
      '  ep:',
      '    type: endpoints',
      '    enforced: true',
      `    ip_policies: [${side.restriction.join(', ')}]`,
    );
  const endpoints = Object.entries(side.endpoints);
  if (endpoints.length > 0) lines.push('cloud_endpoints:');
  for (const [key, named] of endpoints) {
    lines.push(
      `  ${key}:`,
      `    url: ${urlOf(key)}`,
      '    traffic_policy:',
      '      on_http_request:',
      '        - actions:',
    );
    if (named)
      lines.push(
        '            - type: restrict-ips',
        `              config: { ip_policies: [${named.join(', ')}] }`,
      );
    lines.push(
      '            - type: custom-response',
      '              config: { status_code: 200, content: ok }',
    );
  }
  return `${lines.join('\n')}\n`;
}

type Obj = Record<string, unknown>;

async function listOf(client: ApiClient, path: string, key: string): Promise<Obj[]> {
  const out: Obj[] = [];
  for await (const o of client.listAll<Obj>(path, key)) out.push(o);
  return out;
}

const parsed = (text: string) => {
  const c = parseCidr(text);
  if (isCidrProblem(c)) throw new Error(`the service holds a CIDR it should have refused: ${text}`);
  return c;
};

/** Who reaches each endpoint (by URL) now, from the service's lists: the model of SPEC-endpoints.md. */
export async function reachNow(client: ApiClient): Promise<Map<string, Set<string>>> {
  const [restrictions, rules, endpoints] = await Promise.all([
    listOf(client, '/ip_restrictions', 'ip_restrictions'),
    listOf(client, '/ip_policy_rules', 'ip_policy_rules'),
    listOf(client, '/endpoints', 'endpoints'),
  ]);
  const passes = (policies: string[], address: string) => {
    const mine = rules.filter((r) => policies.includes(String((r['ip_policy'] as Obj)['id'])));
    const hit = (action: string) =>
      mine.some((r) => r['action'] === action && cidrContains(parsed(String(r['cidr'])), address));
    return hit('allow') && !hit('deny');
  };
  const account = restrictions
    .filter((r) => r['type'] === 'endpoints' && r['enforced'] === true)
    .map((r) => (r['ip_policies'] as Obj[]).map((p) => String(p['id'])));
  const out = new Map<string, Set<string>>();
  for (const e of endpoints) {
    const document = (parse(String(e['traffic_policy'])) ?? {}) as { on_http_request?: { actions: Obj[] }[] };
    const named = (document.on_http_request ?? [])
      .flatMap((rule) => rule.actions)
      .filter((a) => a['type'] === 'restrict-ips')
      .map((a) => ((a['config'] as Obj)['ip_policies'] as string[]) ?? []);
    const lets = ADDRESSES.filter(
      (a) =>
        account.every((policies) => passes(policies, a)) && named.every((policies) => passes(policies, a)),
    );
    out.set(String(e['url']), new Set(lets));
  }
  return out;
}

export interface Served {
  server: RunningServer;
  client: ApiClient;
  dir: string;
  close(): Promise<void>;
}

/**
 * An agent endpoint with no traffic policy: read-only, restricted only by the account-wide `endpoints`
 * restriction, so what the plan does to that restriction and its policies' rules decides who gets in.
 */
const SEED = `endpoints:
  - id: ep_2agent000000000000000000000
    type: agent
    url: https://agent.example.com
    upstream_url: http://localhost:8080
    upstream_protocol: http1
`;

export async function serve(): Promise<Served> {
  const dir = mkdtempSync(join(tmpdir(), 'accord-endpoint-serve-'));
  writeFileSync(join(dir, 'seed.yaml'), SEED);
  const server = await startServer({ port: 0, apiKeys: [KEY], seed: join(dir, 'seed.yaml') });
  const client = new ApiClient({ baseUrl: server.url, apiKey: KEY, retryPolicy: { maxRetries: 0 } });
  return {
    server,
    client,
    dir,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

const ARGS = { force: true, 'max-destroy-percent': 100, 'allow-takeover': false } as const;

/** The plan of `side` against the served account; the PlanError when it is refused. */
export async function planOf(s: Served, side: Side, name: string): Promise<Plan> {
  const file = join(s.dir, `${name}.yaml`);
  writeFileSync(file, fileOf(side));
  const desired = await loadDesiredState(file, s.dir);
  const { plan } = await planAgainstAccount(s.client, desired, ARGS, { cwd: s.dir, stderr: () => {} });
  return plan;
}

/**
 * Applies `plan` through a client whose writes wait `delays()` turns of the event loop (so that others
 * overtake them) and whose `failAt`th write is refused unsent; `after` is told after every write.
 */
export async function applyWatched(
  s: Served,
  plan: Plan,
  o: { delays: () => number; failAt?: number; after: () => Promise<void> },
): Promise<void> {
  let writes = 0;
  const turns = async () => {
    for (let n = o.delays(); n > 0; n--) await new Promise((r) => setImmediate(r));
  };
  // One write at the service at a time, read back before the next: each state is seen, and the order
  // is the order in which the writes, each after its turns, come to the lock.
  let lock = Promise.resolve();
  const write = async <T>(send: () => Promise<T>): Promise<T> => {
    await turns();
    const run = lock.then(async () => {
      if (++writes === o.failAt)
        throw new ApiError({ method: 'PATCH', path: '/', status: 400, msg: 'injected failure' });
      const answer = await send();
      await o.after();
      return answer;
    });
    lock = run.then(
      () => {},
      () => {},
    );
    return run;
  };
  const client: ApplyClient = {
    post: (path, body) => write(() => s.client.post(path, body)),
    patch: (path, body) => write(() => s.client.patch(path, body)),
    put: (path, body) => write(() => s.client.put(path, body)),
    delete: (path) => write(() => s.client.delete(path)),
    listAll: (path, key) => s.client.listAll(path, key),
  };
  await applyPlan(plan, client, { parallelism: 4 });
}

/** Services started by `served`, closed by `closeServed` (an afterEach of the tests). */
let open: Served[] = [];
export async function closeServed(): Promise<void> {
  await Promise.all(open.map((s) => s.close()));
  open = [];
}

export async function served(): Promise<Served> {
  const s = await serve();
  open.push(s);
  return s;
}

/** What each endpoint lets in once `side` is applied to a fresh account after `from`. */
async function reachOf(from: Side, side: Side): Promise<Map<string, Set<string>>> {
  const s = await served();
  await applyWatched(s, await planOf(s, from, 'from'), { delays: () => 0, after: async () => {} });
  await applyWatched(s, await planOf(s, side, 'to'), { delays: () => 0, after: async () => {} });
  return reachNow(s.client);
}

/**
 * Applies `from`, then `to` with writes overtaken as `delays` says and write `failAt` failing; every
 * state read back after a write stays within the bounds. Returns the states seen.
 */
export async function staysBetween(from: Side, to: Side, delays: number[], failAt?: number): Promise<number> {
  const A = await reachOf(from, to);
  const s = await served();
  await applyWatched(s, await planOf(s, from, 'from'), { delays: () => 0, after: async () => {} });
  const B = await reachNow(s.client);
  const plan = await planOf(s, to, 'to');
  let turn = 0;
  let seen = 0;
  // Collected, not thrown: the executor would take a throw in a write for a failed request.
  const breaches: string[] = [];
  await applyWatched(s, plan, {
    delays: () => delays[turn++ % delays.length]!,
    ...(failAt !== undefined ? { failAt } : {}),
    after: async () => {
      seen++;
      for (const [url, now] of await reachNow(s.client)) {
        const [b, a] = [B.get(url) ?? new Set<string>(), A.get(url) ?? new Set<string>()];
        for (const address of ADDRESSES) {
          if (b.has(address) && a.has(address) && !now.has(address))
            breaches.push(`after write ${seen}: ${url} shuts out ${address}`);
          if (!b.has(address) && !a.has(address) && now.has(address))
            breaches.push(`after write ${seen}: ${url} lets ${address} in`);
        }
      }
    },
  });
  if (breaches.length > 0) throw new Error(`never fail open broken:\n${breaches.join('\n')}`);
  return seen;
}
