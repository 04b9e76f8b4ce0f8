// A property over whole files (DESIGN §1, §3, §4 "Drift"): for random files, written as YAML and read by
// the loader, and a random change made outside accord after an apply:
// - a timestamp with a fraction of a second is refused by validation, naming the whole second;
// - otherwise the plan right after apply is empty and drift is silent, with the account keeping whole
//   seconds as the service does;
// - after the outside change, `accord drift` reports drift (exit 2) exactly when the account differs from
//   the file, whether or not a fingerprint can attribute the difference; and applying settles it again.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { plan } from '../../src/cli/worded-plan.js';
import { ConfigError, loadDesiredState } from '../../src/config/index.js';
import type { DesiredState } from '../../src/config/model.js';
import { PlanError } from '../../src/plan/planner.js';
import type { Plan } from '../../src/plan/types.js';
import { driftReport, hasDrift } from '../../src/render/drift.js';
import type { LiveObject } from '../../src/resources/values.js';
import { FakeAccount, REFERENCED } from '../support/account.js';
import { IPP_1, IPP_2, IPP_3, KEY_A, NOW, OPTIONS, SSHCA_1 } from './fixtures.js';

const TCP_EDGE = 'edgtcp_2propEdge000000000000000000';
const dir = mkdtempSync(join(tmpdir(), 'accord-converge-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fraction = fc.constantFrom('', '', '.0', '.000', '.5', '.123', '.000001', '.999999999');
const stamp = (year: number) =>
  fc
    .record({
      day: fc.integer({ min: 1, max: 28 }),
      sec: fc.integer({ min: 0, max: 59 }),
      frac: fraction,
      zone: fc.constantFrom('Z', '+02:00', '-05:30'),
    })
    .map(
      ({ day, sec, frac, zone }) =>
        `${year}-03-${String(day).padStart(2, '0')}T10:00:${String(sec).padStart(2, '0')}${frac}${zone}`,
    );
const hasFraction = (t: string) => /\.\d*[1-9]/.test(t);

const restriction = fc.record({
  enforced: fc.boolean(),
  policies: fc.subarray([IPP_1, IPP_2, IPP_3], { minLength: 1 }),
  description: fc.constantFrom('', 'office', 'vpn exits'),
});
const host = fc.record({
  principals: fc.subarray(['a.example', 'b.example', 'c.example']),
  after: fc.option(stamp(2027), { nil: undefined }),
  // valid_until, valid_for, or neither (the service's default).
  end: fc.oneof(
    stamp(2028).map((t) => ({ valid_until: t })),
    fc.constantFrom({ valid_for: '90d' }, { valid_for: '12h' }, {}),
  ),
  description: fc.constantFrom('', 'web'),
});
const outside = fc.constantFrom(
  'none',
  'same-description',
  'enforced',
  'policies',
  'description',
  'delete',
  'break-marker',
  'module-policies',
  'module-delete',
);
const world = fc.record({
  restrictions: fc
    .subarray(['dashboard', 'api', 'agent'] as const)
    .chain((types) =>
      fc.tuple(...types.map(() => restriction)).map((rs) => types.map((type, i) => ({ type, ...rs[i]! }))),
    ),
  hosts: fc.array(host, { maxLength: 2 }),
  module: fc.option(fc.subarray([IPP_1, IPP_2], { minLength: 1 }), { nil: undefined }),
  outside,
  pick: fc.nat(),
});
type World = typeof world extends fc.Arbitrary<infer W> ? W : never;

function yamlOf(w: World): string {
  const lines = ['version: 1', 'owner: prop'];
  if (w.restrictions.length > 0) lines.push('ip_restrictions:');
  for (const r of w.restrictions) {
    lines.push(
      `  ${r.type}-traffic:`,
      `    type: ${r.type}`,
      `    enforced: ${r.enforced}`,
      `    ip_policies: [${r.policies.join(', ')}]`,
      `    description: "${r.description}"`,
    );
  }
  if (w.hosts.length > 0) lines.push('ssh_host_certificates:');
  w.hosts.forEach((h, i) => {
    lines.push(
      `  host-${i}:`,
      `    ssh_certificate_authority_id: ${SSHCA_1}`,
      `    public_key: ${KEY_A} host-${i}`,
      `    principals: [${h.principals.join(', ')}]`,
      `    description: "${h.description}"`,
    );
    if (h.after !== undefined) lines.push(`    valid_after: ${h.after}`);
    for (const [k, v] of Object.entries(h.end)) lines.push(`    ${k}: ${v}`);
  });
  if (w.module) {
    lines.push('tcp_edges:', `  ${TCP_EDGE}:`, `    ip_restriction: {ip_policies: [${w.module.join(', ')}]}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The plan, or undefined when the account is in a state the plan refuses (exit 1, never 0). */
function tryPlan(desired: DesiredState, account: FakeAccount): Plan | undefined {
  try {
    return plan(desired, account.live(desired), NOW, OPTIONS);
  } catch (err) {
    if (err instanceof PlanError) return undefined;
    throw err;
  }
}

/** One change made through the API behind accord's back; false when there was nothing to change. */
function changeOutside(account: FakeAccount, w: World): boolean {
  const objects: [string, LiveObject][] = [
    ...account.objects('ip_restriction').map((o): [string, LiveObject] => ['/ip_restrictions', o]),
    ...account
      .objects('ssh_host_certificate')
      .map((o): [string, LiveObject] => ['/ssh_host_certificates', o]),
  ];
  const restrictions = objects.filter(([path]) => path === '/ip_restrictions');
  const pickOf = <T>(list: readonly T[]) => list[w.pick % list.length];
  const modulePath = `/edges/tcp/${TCP_EDGE}/ip_restriction`;
  const patch = (path: string, o: LiveObject, body: Record<string, unknown>) =>
    account.send({ method: 'PATCH', path: `${path}/${String(o['id'])}`, body });
  switch (w.outside) {
    case 'none':
      return false;
    case 'same-description': {
      const target = pickOf(objects);
      if (target) patch(target[0], target[1], { description: target[1]['description'] });
      return false;
    }
    case 'enforced': {
      const target = pickOf(restrictions);
      if (!target) return false;
      patch(target[0], target[1], { enforced: target[1]['enforced'] !== true });
      return true;
    }
    case 'policies': {
      const target = pickOf(restrictions);
      if (!target) return false;
      const now = (target[1]['ip_policies'] as { id: string }[]).map((r) => r.id).sort();
      const other = [IPP_1, IPP_2, IPP_3].filter((p) => !now.includes(p));
      if (other.length === 0) return false;
      patch(target[0], target[1], { ip_policy_ids: [other[0]] });
      return true;
    }
    case 'description': {
      const target = pickOf(objects);
      if (!target) return false;
      patch(target[0], target[1], { description: 'changed by hand' });
      return true;
    }
    case 'delete': {
      const target = pickOf(objects);
      if (!target) return false;
      account.send({ method: 'DELETE', path: `${target[0]}/${String(target[1]['id'])}` });
      return true;
    }
    case 'break-marker': {
      const target = pickOf(objects);
      if (!target) return false;
      patch(target[0], target[1], { metadata: String(target[1]['metadata']).slice(0, -3) });
      return true;
    }
    case 'module-policies': {
      if (!w.module) return false;
      const other = [IPP_1, IPP_2, IPP_3].filter((p) => !w.module!.includes(p));
      account.send({ method: 'PUT', path: modulePath, body: { enabled: true, ip_policy_ids: [other[0]] } });
      return true;
    }
    case 'module-delete': {
      if (!w.module) return false;
      account.send({ method: 'DELETE', path: modulePath });
      return true;
    }
  }
}

let counter = 0;

describe('files of random content and precision, changed outside accord at random', () => {
  it('refuses sub-second timestamps; else converges, and drift is exit 2 exactly when the account differs', async () => {
    await fc.assert(
      fc.asyncProperty(world, async (w) => {
        const file = join(dir, `accord-${counter++}.yaml`);
        writeFileSync(file, yamlOf(w));
        const stamps = w.hosts.flatMap((h) => [h.after, (h.end as { valid_until?: string }).valid_until]);
        const fractional = stamps.filter((t): t is string => t !== undefined && hasFraction(t));
        let desired: DesiredState;
        try {
          desired = await loadDesiredState(file, dir);
        } catch (err) {
          if (!(err instanceof ConfigError)) throw err;
          // Refused only for the fractions, each named with its whole second.
          expect(fractional.length).toBeGreaterThan(0);
          for (const p of err.problems) expect(p.message).toContain('has a fraction of a second');
          for (const t of fractional) {
            const whole = t.replace(/\.\d+/, '');
            expect(err.problems.map((p) => p.message).join('\n')).toContain(`write ${whole} (whole seconds)`);
          }
          return;
        }
        expect(fractional).toEqual([]);

        const account = new FakeAccount(NOW, {}, { ...REFERENCED, tcpEdges: [TCP_EDGE] });
        account.execute(plan(desired, account.live(desired), NOW, OPTIONS));
        const settled = plan(desired, account.live(desired), NOW, OPTIONS);
        expect(settled.changes.filter((c) => c.action !== 'no-op').map((c) => c.address)).toEqual([]);
        expect(hasDrift(driftReport(settled))).toBe(false);

        const changed = changeOutside(account, w);
        const after = tryPlan(desired, account);
        const differs = after === undefined || after.changes.some((c) => c.action !== 'no-op');
        expect(differs).toBe(changed);
        // drift exits 2 on drift, 1 when the plan is refused: 0 exactly when nothing differs.
        const driftExit = after === undefined ? 1 : hasDrift(driftReport(after)) ? 2 : 0;
        expect(driftExit === 0).toBe(!differs);

        if (after) {
          account.execute(after);
          const again = plan(desired, account.live(desired), NOW, OPTIONS);
          expect(again.changes.filter((c) => c.action !== 'no-op').map((c) => c.address)).toEqual([]);
          expect(hasDrift(driftReport(again))).toBe(false);
        }
      }),
      { numRuns: 120 },
    );
  });
});
