// A marker written by a newer version (fields this one does not know) is still this owner's marker
// (DESIGN §2): the entry is matched, never created again, and a PATCH keeps those fields.
import { describe, expect, it } from 'vitest';
import type { LiveState } from '../../src/account/model.js';
import { plan } from '../../src/cli/worded-plan.js';
import { decodeMarker } from '../../src/resources/marker.js';
import {
  ca,
  cert,
  desiredState,
  emptyLive,
  ipr,
  liveCa,
  liveCert,
  liveIpr,
  NOW,
  OPTIONS,
  OWNER,
  SEEDED_POLICIES,
} from './fixtures.js';

const future = (key: string, owner = OWNER) =>
  JSON.stringify({
    accord: { owner, key, rollout: 'canary', channel: { name: 'beta' } },
    data: { team: 'edge' },
    signed_by: 'accord 9',
  });

const kinds = [
  {
    kind: 'ip_restriction',
    entry: (o = {}) => ipr('office', { data: { team: 'edge' }, ...o }),
    live: (metadata: string) => liveIpr('ipx_1', { metadata }),
    patched: { enforced: false },
    replaced: { type: 'api' },
    section: 'ip_restrictions',
  },
  {
    kind: 'certificate_authority',
    entry: (o = {}) => ca('office', 'root', { data: { team: 'edge' }, ...o }),
    live: (metadata: string) => liveCa('ca_1', 'root', { metadata }),
    patched: { description: 'new' },
    replaced: { ca_sha256: 'f'.repeat(64) },
    section: 'certificate_authorities',
  },
  {
    kind: 'ssh_host_certificate',
    entry: (o = {}) => cert('office', { data: { team: 'edge' }, ...o }),
    live: (metadata: string) => liveCert('shcrt_1', { metadata }),
    patched: { description: 'new' },
    replaced: { principals: ['z.example.com'] },
    section: 'ssh_host_certificates',
  },
] as const;

function state(k: (typeof kinds)[number], o: Record<string, unknown> = {}) {
  return desiredState({ [k.section]: [k.entry(o)] });
}

function liveWith(k: (typeof kinds)[number], ...metadata: string[]): LiveState {
  const l = emptyLive();
  l.managed[k.kind] = metadata.map((m, i) => ({
    ...k.live(m),
    id: `${k.live(m).id}${i}`,
    created_at: `2026-01-0${i + 1}T00:00:00Z`,
  }));
  return l;
}

/** The marker as JSON without the fingerprint, which every write refreshes (test/plan/drift.test.ts). */
function withoutFingerprint(metadata: string) {
  const m = JSON.parse(metadata) as { accord: Record<string, unknown> };
  expect(m.accord['applied']).toMatch(/^3/);
  delete m.accord['applied'];
  return m;
}

describe.each(kinds)('$kind: a marker from a newer version', (k) => {
  it('is matched: no create, no duplicate, nothing to change', () => {
    const p = plan(state(k), liveWith(k, future('office')), NOW, OPTIONS);
    expect(p.changes.map((c) => c.action)).toEqual(['no-op']);
    expect(p.summary).toMatchObject({ create: 0, delete: 0, unmanaged: SEEDED_POLICIES, other_owners: 0 });
  });

  it('is still one key: a second object with it is the duplicate to delete', () => {
    const p = plan(state(k), liveWith(k, future('office'), future('office')), NOW, OPTIONS);
    expect(p.changes.map((c) => [c.action, c.id])).toEqual([
      ['no-op', `${k.live('').id}0`],
      ['delete', `${k.live('').id}1`],
    ]);
  });

  it('of another owner is left alone, counted', () => {
    const p = plan(desiredState(), liveWith(k, future('office', 'team-b')), NOW, OPTIONS);
    expect(p.changes).toEqual([]);
    expect(p.summary.other_owners).toBe(1);
  });

  it('keeps its unknown fields when patched', () => {
    const p = plan(state(k, k.patched), liveWith(k, future('office')), NOW, OPTIONS);
    const [c] = p.changes;
    expect(c!.action).toBe('patch');
    const written = withoutFingerprint(String(c!.requests[0]!.body!['metadata']));
    expect(written).toEqual(JSON.parse(future('office')));
    expect(c!.after!['marker_unknown']).toEqual(decodeMarker(future('office'))!.unknown);
  });

  it('keeps its unknown fields when renamed', () => {
    const p = plan(state(k), liveWith(k, future('gone')), NOW, OPTIONS);
    const [c] = p.changes;
    expect([c!.action, c!.reasons[0]]).toEqual(['patch', 'renamed from gone']);
    expect(withoutFingerprint(String(c!.requests[0]!.body!['metadata']))).toEqual(
      JSON.parse(future('office')),
    );
  });

  it('gets a marker of this version on a new object (a POST keeps nothing of the old one)', () => {
    const p = plan(state(k, k.replaced), liveWith(k, future('office')), NOW, OPTIONS);
    const replace = p.changes.find((c) => c.action === 'replace')!;
    expect(replace.requests.map((r) => r.method)).toEqual(['POST', 'DELETE']);
    expect(withoutFingerprint(String(replace.requests[0]!.body!['metadata']))).toEqual({
      accord: { owner: OWNER, key: 'office' },
      data: { team: 'edge' },
    });
  });
});
