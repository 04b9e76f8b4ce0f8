// Planning types each live object and each entry once (STYLE.md "One model, built once"): whatever
// matching, slots, renames, nested kinds and traffic ask of them, normalizeLive runs once per live
// object and normalizeDesired once per entry; `accord drift` and `accord reach`, which read the account
// again after the plan, as well. A plan that needs the TCP edges (a policy deleted) is made once: the
// planner asks for them between matching and the rest, so each entry is normalized once there too.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { plan } from '../../src/cli/worded-plan.js';
import type { Plan } from '../../src/plan/types.js';
import { managedDescriptors, moduleDescriptors } from '../../src/resources/index.js';
import type { LiveObject } from '../../src/resources/values.js';
import { runMain } from '../support/cli.js';
import { EXAMPLE, useSeededService } from '../support/server.js';
import {
  ca,
  cert,
  desiredState,
  emptyLive,
  ipr,
  liveCa,
  liveCert,
  liveIpr,
  livePolicy,
  liveRule,
  marker,
  NOW,
  OPTIONS,
  policy,
  withPolicies,
} from './fixtures.js';

/** A kind's normalizers, whatever the kind's values. */
interface Normalizers {
  normalizeLive(o: unknown): Record<string, unknown>;
  normalizeDesired(e: unknown): Record<string, unknown>;
}

/** Spies on every kind's normalizers (managed kinds and modules); counts calls per argument. */
function countNormalizations() {
  const live = new Map<unknown, number>();
  const desired = new Map<unknown, number>();
  for (const d of [...managedDescriptors, ...moduleDescriptors] as unknown as Normalizers[]) {
    const normalizeLive = d.normalizeLive.bind(d);
    const normalizeDesired = d.normalizeDesired.bind(d);
    vi.spyOn(d, 'normalizeLive').mockImplementation((o) => {
      live.set(o, (live.get(o) ?? 0) + 1);
      return normalizeLive(o);
    });
    vi.spyOn(d, 'normalizeDesired').mockImplementation((e) => {
      desired.set(e, (desired.get(e) ?? 0) + 1);
      return normalizeDesired(e);
    });
  }
  return { live, desired };
}

afterEach(() => {
  vi.restoreAllMocks();
});

/** `n` of each: restrictions renamed, swapped and duplicated, CAs to rename, rules to flip and drop. */
function account(n: number) {
  const live = emptyLive();
  const types = ['dashboard', 'api', 'agent', 'endpoints'] as const;
  const restrictions: LiveObject[] = [];
  const cas: LiveObject[] = [];
  const policies: LiveObject[] = [];
  const rules: LiveObject[] = [];
  for (let i = 0; i < n; i++) {
    restrictions.push(liveIpr(`ipx_${i}`, { type: types[i % 4], metadata: marker(`r${i}`) }));
    restrictions.push(liveIpr(`ipx_dup${i}`, { type: types[i % 4], metadata: marker(`r${i}`) }));
    cas.push(liveCa(`ca_${i}`, `s${i}`, { metadata: marker(`old-ca${i}`) }));
    policies.push(livePolicy(`ipp_p${i}`, { metadata: marker(`p${i}`) }));
    rules.push(
      liveRule(`ipr_a${i}`, `ipp_p${i}`, ['allow', '203.0.113.0/24'], { metadata: marker(`p${i}/x`) }),
    );
    rules.push(liveRule(`ipr_b${i}`, `ipp_p${i}`, ['deny', '198.51.100.0/24']));
  }
  live.managed = {
    ...live.managed,
    ip_restriction: restrictions,
    certificate_authority: cas,
    ip_policy: [...live.managed.ip_policy, ...policies],
    ip_policy_rule: [...live.managed.ip_policy_rule, ...rules],
    ssh_host_certificate: [liveCert('shcrt_1', { metadata: marker('gone') })],
  };
  const desired = desiredState({
    ip_restrictions: Array.from({ length: Math.min(n, 4) }, (_, i) =>
      ipr(`renamed${i}`, { type: types[i % 4] }),
    ),
    certificate_authorities: Array.from({ length: n }, (_, i) => ca(`ca${i}`, `s${i}`)),
    ssh_host_certificates: [cert('bastion')],
    ...withPolicies(
      ...Array.from({ length: n }, (_, i) =>
        policy(`p${i}`, [
          ['deny', '203.0.113.0/24'],
          ['allow', '192.0.2.0/24'],
        ]),
      ),
    ),
  });
  return { live, desired };
}

describe('planning builds each value once', () => {
  it.each([1, 3, 8])('normalizes each of the live objects and entries of %d of each once', (n) => {
    const { live, desired } = account(n);
    const counts = countNormalizations();
    const p = plan(desired, live, NOW, OPTIONS);
    expect(p.changes.length).toBeGreaterThan(0);
    const objects = Object.values(live.managed).flat();
    expect([...counts.live.keys()].sort()).toEqual([...objects].sort());
    expect(new Set(counts.live.values())).toEqual(new Set([1]));
    expect(new Set(counts.desired.values())).toEqual(new Set([1]));
    const entries = [...desired.ip_restrictions, ...desired.certificate_authorities, ...desired.ip_policies];
    for (const e of [...entries, ...desired.ip_policy_rules]) expect(counts.desired.get(e)).toBe(1);
  });

  it('normalizes once whatever the account and the file hold', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 6 }), (n) => {
        const { live, desired } = account(n);
        vi.restoreAllMocks();
        const counts = countNormalizations();
        plan(desired, live, NOW, OPTIONS);
        for (const o of Object.values(live.managed).flat()) expect(counts.live.get(o)).toBe(1);
        for (const c of counts.desired.values()) expect(c).toBe(1);
      }),
      { numRuns: 20 },
    );
  });
});

describe('drift and reach type the account once', () => {
  const KEY = 'test-key-built-once-0123456789';
  const server = useSeededService(KEY);
  const dir = mkdtempSync(join(tmpdir(), 'accord-built-once-'));
  const extra = join(dir, 'extra.yaml');
  const guards = join(dir, 'guards.yaml');
  const run = (...args: string[]) => runMain(args, { ACCORD_API_KEY: KEY, ACCORD_API_URL: server.url });

  it.each([
    ['drift', ['drift', '-f', EXAMPLE, '-f', '<guards>']],
    ['reach', ['reach', '-f', EXAMPLE, '203.0.113.7']],
    ['plan', ['plan', '-f', EXAMPLE]],
  ])(
    '%s, whose plan deletes a policy and so lists the TCP edges, plans once and normalizes each value once',
    async (_, args) => {
      writeFileSync(
        extra,
        'version: 1\nowner: platform\nip_policies:\n  temp:\n    rules:\n      - allow: 198.51.100.0/24\n',
      );
      writeFileSync(guards, 'version: 1\nowner: platform\nguards:\n  dashboard:\n    enforced: true\n');
      const applied = await run('apply', '-f', EXAMPLE, '-f', extra, '--auto-approve');
      expect(applied.code, applied.out + applied.err).toBe(0);
      // Without temp the plan deletes it: matched, TCP edges listed, finished.
      const planned = JSON.parse((await run('plan', '-f', EXAMPLE, '--json')).out) as Plan;
      expect(planned.changes.filter((c) => c.action === 'delete').map((c) => c.address)).toEqual([
        'ip_policies.temp',
      ]);
      const counts = countNormalizations();
      const result = await run(...args.map((a) => (a === '<guards>' ? guards : a)));
      vi.restoreAllMocks();
      expect(result.code, result.out + result.err).not.toBe(1);
      expect(counts.live.size).toBeGreaterThan(10);
      expect(new Set(counts.live.values())).toEqual(new Set([1]));
      // Each entry is matched once: a plan made twice would normalize each of them twice.
      expect(counts.desired.size).toBeGreaterThan(5);
      expect(new Set(counts.desired.values())).toEqual(new Set([1]));
    },
  );
});
