// Slots and renames (DESIGN §2): an IP restriction is matched by its type whatever key its marker
// holds, so a rename, a swap or a rotation is a PATCH of the marker and no type the file wants is ever
// without its restriction; certificate authorities and SSH host certificates are renamed by their
// immutable values. No create ever waits for a delete.
import { describe, expect, it } from 'vitest';
import type { LiveState } from '../../src/account/model.js';
import { plan } from '../../src/cli/worded-plan.js';
import { PlanError } from '../../src/plan/planner.js';
import type { Plan, PlanChange } from '../../src/plan/types.js';
import { renderJson } from '../../src/render/json.js';
import { renderMarkdown } from '../../src/render/markdown.js';
import { renderText } from '../../src/render/text.js';
import { decodeMarker } from '../../src/resources/marker.js';
import {
  ca,
  cert,
  desiredState,
  emptyLive,
  IPP_2,
  ipr,
  KEY_B,
  liveCa,
  liveCert,
  liveIpr,
  marker,
  NOW,
  OPTIONS,
} from './fixtures.js';

function live(parts: Partial<LiveState['managed']> = {}): LiveState {
  const l = emptyLive();
  return { managed: { ...l.managed, ...parts }, modules: {} };
}

/** address action id [reasons] of every change that does something. */
function summary(p: Plan): string[] {
  return p.changes
    .filter((c) => c.action !== 'no-op')
    .map((c) => `${c.address} ${c.action} ${c.id ?? '-'} [${c.reasons.join('; ')}]`);
}

function at(p: Plan, address: string): PlanChange {
  const c = p.changes.find((x) => x.address === address);
  expect(c, address).toBeDefined();
  return c!;
}

/** The key the marker of a PATCH or POST writes. */
function writtenKey(c: PlanChange): string | undefined {
  const body = c.requests.find((r) => r.method !== 'DELETE')?.body;
  return decodeMarker(String(body?.['metadata']))?.key;
}

function planError(run: () => unknown): string[] {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(PlanError);
    return (err as PlanError).messages;
  }
  throw new Error('expected a PlanError');
}

describe('slots: IP restrictions are matched by type', () => {
  it('a renamed key is a PATCH of the marker that keeps the ID', () => {
    const p = plan(
      desiredState({ ip_restrictions: [ipr('office-vpn')] }),
      live({ ip_restriction: [liveIpr('ipx_1', { metadata: marker('office') })] }),
      NOW,
      OPTIONS,
    );
    expect(summary(p)).toEqual(['ip_restrictions.office-vpn patch ipx_1 [renamed from office]']);
    const c = at(p, 'ip_restrictions.office-vpn');
    expect(c.requests).toHaveLength(1);
    expect(c.requests[0]!).toMatchObject({ method: 'PATCH', path: '/ip_restrictions/ipx_1' });
    expect(Object.keys(c.requests[0]!.body!)).toEqual(['metadata']);
    expect(writtenKey(c)).toBe('office-vpn');
    expect(c.changed_fields).toEqual(['marker']);
    expect(c.depends_on).toEqual([]);
    expect(p.summary).toMatchObject({ create: 0, delete: 0, patch: 1 });
  });

  it('every output shows the rename', () => {
    const p = plan(
      desiredState({ ip_restrictions: [ipr('office-vpn')] }),
      live({ ip_restriction: [liveIpr('ipx_1', { metadata: marker('office') })] }),
      NOW,
      OPTIONS,
    );
    const text = renderText(p, { color: false });
    expect(text).toContain('  ~ ip_restrictions.office-vpn (ipx_1)  # renamed from office\n');
    expect(text).toContain('      ~ marker = "platform/office" -> "platform/office-vpn"\n');
    const json = JSON.parse(renderJson(p)) as Plan;
    expect(json.changes[0]!.reasons).toEqual(['renamed from office']);
    expect(renderMarkdown(p)).toContain(
      '| `~` patch | `ip_restrictions.office-vpn` | `ipx_1` | type: dashboard | renamed from office |',
    );
  });

  it('a rename with other differences carries them in the same PATCH', () => {
    const p = plan(
      desiredState({ ip_restrictions: [ipr('office-vpn', { enforced: false, ip_policy_ids: [IPP_2] })] }),
      live({ ip_restriction: [liveIpr('ipx_1', { metadata: marker('office') })] }),
      NOW,
      OPTIONS,
    );
    expect(summary(p)).toEqual([
      'ip_restrictions.office-vpn patch ipx_1 [renamed from office; enforced changed; ip_policies changed]',
    ]);
    expect(at(p, 'ip_restrictions.office-vpn').requests[0]!.body).toMatchObject({
      enforced: false,
      ip_policy_ids: [IPP_2],
    });
  });

  it('two entries swapping types are two PATCHes, nothing deleted or created', () => {
    const p = plan(
      desiredState({ ip_restrictions: [ipr('a', { type: 'api' }), ipr('b', { type: 'dashboard' })] }),
      live({
        ip_restriction: [
          liveIpr('ipx_1', { type: 'dashboard', metadata: marker('a') }),
          liveIpr('ipx_2', { type: 'api', metadata: marker('b') }),
        ],
      }),
      NOW,
      OPTIONS,
    );
    expect(summary(p)).toEqual([
      'ip_restrictions.a patch ipx_2 [renamed from b; types swapped with b]',
      'ip_restrictions.b patch ipx_1 [renamed from a; types swapped with a]',
    ]);
    expect(p.changes.flatMap((c) => c.requests.map((r) => r.method))).toEqual(['PATCH', 'PATCH']);
    expect(p.warnings).toEqual([]);
  });

  it('a three-way rotation (dashboard -> api -> agent -> dashboard) is three PATCHes', () => {
    const p = plan(
      desiredState({
        ip_restrictions: [
          ipr('x', { type: 'api' }),
          ipr('y', { type: 'agent' }),
          ipr('z', { type: 'dashboard' }),
        ],
      }),
      live({
        ip_restriction: [
          liveIpr('ipx_x', { type: 'dashboard', metadata: marker('x') }),
          liveIpr('ipx_y', { type: 'api', metadata: marker('y') }),
          liveIpr('ipx_z', { type: 'agent', metadata: marker('z') }),
        ],
      }),
      NOW,
      OPTIONS,
    );
    expect(summary(p)).toEqual([
      'ip_restrictions.x patch ipx_y [renamed from y]',
      'ip_restrictions.y patch ipx_z [renamed from z]',
      'ip_restrictions.z patch ipx_x [renamed from x]',
    ]);
  });

  it('a type moving to a free type creates the new restriction before it deletes the old', () => {
    const p = plan(
      desiredState({ ip_restrictions: [ipr('office', { type: 'api' })] }),
      live({ ip_restriction: [liveIpr('ipx_1', { metadata: marker('office') })] }),
      NOW,
      OPTIONS,
    );
    expect(summary(p)).toEqual(['ip_restrictions.office replace ipx_1 [type cannot be updated]']);
    const c = at(p, 'ip_restrictions.office');
    expect(c.replace_order).toBe('create_before_delete');
    expect(c.requests.map((r) => r.method)).toEqual(['POST', 'DELETE']);
  });

  it('a type moving into the slot of a removed entry renames that object and deletes its own', () => {
    const p = plan(
      desiredState({ ip_restrictions: [ipr('a', { type: 'api' })] }),
      live({
        ip_restriction: [
          liveIpr('ipx_a', { type: 'dashboard', metadata: marker('a') }),
          liveIpr('ipx_b', { type: 'api', metadata: marker('b') }),
        ],
      }),
      NOW,
      OPTIONS,
    );
    expect(summary(p)).toEqual([
      'ip_restrictions.a patch ipx_b [renamed from b]',
      'ip_restrictions.a#ipx_a delete ipx_a [its IP restriction of type dashboard is no longer in the file (key a is now ipx_b)]',
    ]);
    expect(p.changes.every((c) => c.depends_on.length === 0)).toBe(true);
    // A restriction the file no longer wants is destruction, not cleanup.
    expect(p.safety.destroyed).toBe(1);
  });

  it('a renamed entry that stays protected keeps protect; a rename may also turn it off or on', () => {
    for (const [was, is] of [
      [true, true],
      [true, false],
      [false, true],
    ] as const) {
      const p = plan(
        desiredState({ ip_restrictions: [ipr('new', { protect: is })] }),
        live({ ip_restriction: [liveIpr('ipx_1', { metadata: marker('old', { protect: was }) })] }),
        NOW,
        OPTIONS,
      );
      expect(p.safe, `${was} -> ${is}`).toBe(true);
      const c = at(p, 'ip_restrictions.new');
      expect(c.action).toBe('patch');
      expect(decodeMarker(String(c.requests[0]!.body!['metadata']))?.protect).toBe(is);
    }
  });

  it('a protected restriction whose type no entry wants still refuses the plan', () => {
    const p = plan(
      desiredState({ ip_restrictions: [ipr('a', { type: 'api' })] }),
      live({
        ip_restriction: [
          liveIpr('ipx_a', { type: 'dashboard', metadata: marker('a', { protect: true }) }),
          liveIpr('ipx_b', { type: 'api', metadata: marker('b') }),
        ],
      }),
      NOW,
      OPTIONS,
    );
    expect(p.safe).toBe(false);
    expect(p.unsafe_reasons).toEqual([
      expect.stringContaining('ip_restrictions.a#ipx_a: would delete ipx_a'),
    ]);
  });

  it('a crash between the two PATCHes of a swap deletes nothing on the next plan', () => {
    // The first PATCH (ipx_1 a -> b) was made, the second (ipx_2 b -> a) was not.
    const p = plan(
      desiredState({ ip_restrictions: [ipr('a', { type: 'api' }), ipr('b', { type: 'dashboard' })] }),
      live({
        ip_restriction: [
          liveIpr('ipx_1', { type: 'dashboard', metadata: marker('b') }),
          liveIpr('ipx_2', { type: 'api', metadata: marker('b') }),
        ],
      }),
      NOW,
      OPTIONS,
    );
    expect(summary(p)).toEqual(['ip_restrictions.a patch ipx_2 [renamed from b]']);
    expect(at(p, 'ip_restrictions.b')).toMatchObject({ action: 'no-op', id: 'ipx_1' });
  });

  it('a type held by an unmanaged restriction is a plan error naming it and both ways out', () => {
    const problems = planError(() =>
      plan(
        desiredState({ ip_restrictions: [ipr('a', { type: 'api' })] }),
        live({ ip_restriction: [liveIpr('ipx_9', { type: 'api', description: 'by hand' })] }),
        NOW,
        OPTIONS,
      ),
    );
    expect(problems).toEqual([
      'ip_restrictions.a (/w/accord.yaml:1:1): the IP restriction of type api is held by ipx_9 ("by hand"), which accord does not manage; adopt it with id: ipx_9 on this entry, or remove it from the account',
    ]);
  });

  it("a type held by another owner's restriction is a plan error naming its owner", () => {
    const problems = planError(() =>
      plan(
        desiredState({ ip_restrictions: [ipr('a', { type: 'api' })] }),
        live({
          ip_restriction: [liveIpr('ipx_9', { type: 'api', metadata: marker('k', { owner: 'team-b' }) })],
        }),
        NOW,
        OPTIONS,
      ),
    );
    expect(problems).toEqual([
      'ip_restrictions.a (/w/accord.yaml:1:1): the IP restriction of type api is held by ipx_9, of owner "team-b" (key k); take it over with id: ipx_9 and --allow-takeover, or remove it from the account',
    ]);
  });

  it('a replace into a type held by an object another entry names with id: is a plan error', () => {
    const problems = planError(() =>
      plan(
        desiredState({
          ip_restrictions: [ipr('a', { type: 'api', id: 'ipx_1' }), ipr('b', { type: 'dashboard' })],
        }),
        live({ ip_restriction: [liveIpr('ipx_1', { type: 'dashboard', metadata: marker('a') })] }),
        NOW,
        OPTIONS,
      ),
    );
    expect(problems).toEqual([
      'ip_restrictions.b (/w/accord.yaml:1:1): the IP restriction of type dashboard is held by ipx_1, which ip_restrictions.a keeps; give this entry id: ipx_1 instead, or remove it from the account',
    ]);
  });
});

describe('duplicates are cleanup', () => {
  it('never count toward --max-destroy-percent, so a plain apply heals them', () => {
    // Two concurrent applies of 12 CAs left a duplicate of each.
    const seeds = Array.from({ length: 12 }, (_, i) => `r${i}`);
    const cas = seeds.flatMap((seed, i) => [
      liveCa(`ca_${i}a`, seed, { metadata: marker(`k${i}`), created_at: '2026-01-01T00:00:00Z' }),
      liveCa(`ca_${i}b`, seed, { metadata: marker(`k${i}`), created_at: '2026-01-02T00:00:00Z' }),
    ]);
    const p = plan(
      desiredState({ certificate_authorities: seeds.map((seed, i) => ca(`k${i}`, seed)) }),
      live({ certificate_authority: cas }),
      NOW,
      OPTIONS,
    );
    expect(p.summary.delete).toBe(12);
    expect(p.changes.filter((c) => c.action === 'delete').map((c) => c.reasons[0])).toContain(
      'duplicate of ca_0a (key k0; the oldest is kept)',
    );
    expect(p.safe).toBe(true);
    expect(p.safety).toMatchObject({ managed: 24, destroyed: 0, threshold_exceeded: false });
  });

  it('a protected duplicate is removed without refusing the plan; its original stays', () => {
    const p = plan(
      desiredState({ certificate_authorities: [ca('k', 'r1', { protect: true })] }),
      live({
        certificate_authority: [
          liveCa('ca_1', 'r1', { metadata: marker('k', { protect: true }) }),
          liveCa('ca_2', 'r1', {
            metadata: marker('k', { protect: true }),
            created_at: '2026-02-01T00:00:00Z',
          }),
        ],
      }),
      NOW,
      OPTIONS,
    );
    expect(p.safe).toBe(true);
    expect(summary(p)).toEqual([
      'certificate_authorities.k#ca_2 delete ca_2 [duplicate of ca_1 (key k; the oldest is kept)]',
    ]);
  });

  it('objects of a removed key are counted, duplicates or not', () => {
    const p = plan(
      desiredState(),
      live({
        certificate_authority: [
          liveCa('ca_1', 'r1', { metadata: marker('gone') }),
          liveCa('ca_2', 'r1', { metadata: marker('gone'), created_at: '2026-02-01T00:00:00Z' }),
        ],
      }),
      NOW,
      OPTIONS,
    );
    expect(p.safety.destroyed).toBe(2);
  });
});

describe('renames of kinds without a slot', () => {
  it('a CA whose key changed is renamed by its certificate, keeping its ID', () => {
    const p = plan(
      desiredState({ certificate_authorities: [ca('corp-root', 'r1')] }),
      live({ certificate_authority: [liveCa('ca_1', 'r1', { metadata: marker('root') })] }),
      NOW,
      OPTIONS,
    );
    expect(summary(p)).toEqual(['certificate_authorities.corp-root patch ca_1 [renamed from root]']);
    expect(writtenKey(at(p, 'certificate_authorities.corp-root'))).toBe('corp-root');
    expect(p.warnings).toEqual([]);
  });

  it('a rename with a changed description is one PATCH', () => {
    const p = plan(
      desiredState({ certificate_authorities: [ca('corp-root', 'r1', { description: 'new' })] }),
      live({
        certificate_authority: [liveCa('ca_1', 'r1', { metadata: marker('root'), description: 'old' })],
      }),
      NOW,
      OPTIONS,
    );
    expect(summary(p)).toEqual([
      'certificate_authorities.corp-root patch ca_1 [renamed from root; description changed]',
    ]);
    expect(at(p, 'certificate_authorities.corp-root').requests[0]!.body).toMatchObject({
      description: 'new',
    });
  });

  it('two candidates for one entry: a create and deletes, with a warning naming id:', () => {
    const p = plan(
      desiredState({ certificate_authorities: [ca('corp-root', 'r1')] }),
      live({
        certificate_authority: [
          liveCa('ca_1', 'r1', { metadata: marker('root') }),
          liveCa('ca_2', 'r1', { metadata: marker('root-2') }),
        ],
      }),
      NOW,
      OPTIONS,
    );
    expect(summary(p)).toEqual([
      'certificate_authorities.corp-root create - [not in the account yet]',
      'certificate_authorities.root delete ca_1 [not in the file]',
      'certificate_authorities.root-2 delete ca_2 [not in the file]',
    ]);
    expect(p.warnings).toEqual([
      expect.stringMatching(
        /^certificate_authorities\.corp-root: .*give the entry id: ca_1 to make it a rename$/,
      ),
    ]);
  });

  it('one object two new entries could be: neither is renamed', () => {
    const p = plan(
      desiredState({ certificate_authorities: [ca('x', 'r1'), ca('y', 'r1')] }),
      live({ certificate_authority: [liveCa('ca_1', 'r1', { metadata: marker('root') })] }),
      NOW,
      OPTIONS,
    );
    expect(p.summary).toMatchObject({ create: 2, delete: 1, patch: 0 });
    expect(p.warnings).toHaveLength(2);
    expect(p.warnings[0]).toContain('so does certificate_authorities.y');
  });

  it('another certificate is not a rename', () => {
    const p = plan(
      desiredState({ certificate_authorities: [ca('corp-root', 'r2')] }),
      live({ certificate_authority: [liveCa('ca_1', 'r1', { metadata: marker('root') })] }),
      NOW,
      OPTIONS,
    );
    expect(p.summary).toMatchObject({ create: 1, delete: 1, patch: 0 });
    expect(p.warnings).toEqual([]);
  });

  it("an unmanaged or another owner's CA is never a rename candidate", () => {
    const p = plan(
      desiredState({ certificate_authorities: [ca('corp-root', 'r1')] }),
      live({
        certificate_authority: [
          liveCa('ca_1', 'r1'),
          liveCa('ca_2', 'r1', { metadata: marker('root', { owner: 'team-b' }) }),
        ],
      }),
      NOW,
      OPTIONS,
    );
    expect(summary(p)).toEqual(['certificate_authorities.corp-root create - [not in the account yet]']);
  });

  it('an SSH host certificate is renamed by its CA, public key and principals', () => {
    const p = plan(
      desiredState({ ssh_host_certificates: [cert('web-1')] }),
      live({ ssh_host_certificate: [liveCert('shcrt_1', { metadata: marker('web') })] }),
      NOW,
      OPTIONS,
    );
    expect(summary(p)).toEqual(['ssh_host_certificates.web-1 patch shcrt_1 [renamed from web]']);
  });

  it('an SSH host certificate with another key or other principals is not', () => {
    for (const o of [
      { public_key: `${KEY_B} h`, public_key_canonical: KEY_B },
      { principals: ['b.example.com'] },
    ]) {
      const p = plan(
        desiredState({ ssh_host_certificates: [cert('web-1', o)] }),
        live({ ssh_host_certificate: [liveCert('shcrt_1', { metadata: marker('web') })] }),
        NOW,
        OPTIONS,
      );
      expect(p.summary).toMatchObject({ create: 1, delete: 1, patch: 0 });
    }
  });

  it('two SSH host certificates of the same key and principals under removed keys: ambiguous', () => {
    const p = plan(
      desiredState({ ssh_host_certificates: [cert('web-1')] }),
      live({
        ssh_host_certificate: [
          liveCert('shcrt_1', { metadata: marker('web') }),
          liveCert('shcrt_2', { metadata: marker('www') }),
        ],
      }),
      NOW,
      OPTIONS,
    );
    expect(p.summary).toMatchObject({ create: 1, delete: 2, patch: 0 });
    expect(p.warnings).toEqual([expect.stringContaining('give the entry id: shcrt_1 to make it a rename')]);
  });
});

describe('a replace cut off between its create and its delete', () => {
  it('keeps the new object, which agrees with the file, and deletes the old one', () => {
    const p = plan(
      desiredState({ certificate_authorities: [ca('root', 'r2')] }),
      live({
        certificate_authority: [
          liveCa('ca_old', 'r1', { metadata: marker('root'), created_at: '2026-01-01T00:00:00Z' }),
          liveCa('ca_new', 'r2', { metadata: marker('root'), created_at: '2026-02-01T00:00:00Z' }),
        ],
      }),
      NOW,
      OPTIONS,
    );
    expect(summary(p)).toEqual([
      'certificate_authorities.root#ca_old delete ca_old [duplicate of ca_new (key root; the one that agrees with the file is kept)]',
    ]);
  });
});
