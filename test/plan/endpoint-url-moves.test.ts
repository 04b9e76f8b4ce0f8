// A cloud endpoint's changed url (a PATCH) onto a URL another cloud endpoint holds: the service takes one
// cloud endpoint per URL at any moment (409, ERR_NGROK_18009). A holder that leaves the URL in the same
// plan (deleted, or moved elsewhere) goes first; any other is a plan problem, as a create there is; two
// endpoints exchanging URLs cannot be ordered and are refused. An agent endpoint on the URL is a pool,
// which the service allows. A new entry at a URL another endpoint leaves in the same plan waits for it
// the same way. And `id:` naming an agent endpoint says what it is, not that it does not exist.
import { describe, expect, it } from 'vitest';
import type { LiveState } from '../../src/account/model.js';
import { plan } from '../../src/cli/worded-plan.js';
import { PlanError } from '../../src/plan/planner.js';
import type { Plan } from '../../src/plan/types.js';
import type { DesiredCloudEndpoint } from '../../src/resources/cloud_endpoint.js';
import type { LiveObject } from '../../src/resources/values.js';
import { desiredState, liveState, marker, NOW, OPTIONS } from './fixtures.js';

const A = 'https://a.example.com';
const B = 'https://b.example.com';
const C = 'https://c.example.com';
const POLICY = { on_http_request: [{ actions: [{ type: 'add-headers', config: { headers: { x: 'y' } } }] }] };

function liveEndpoint(id: string, url: string, o: { key?: string; metadata?: string; type?: string } = {}) {
  const type = o.type ?? 'cloud';
  return {
    id,
    type,
    url,
    created_at: '2026-01-01T00:00:00Z',
    description: '',
    metadata: o.metadata ?? (o.key !== undefined ? marker(o.key) : ''),
    pooling_enabled: false,
    traffic_policy: JSON.stringify(POLICY),
  } as LiveObject;
}

function entry(key: string, url: string, line: number): DesiredCloudEndpoint {
  return {
    kind: 'cloud_endpoint',
    key,
    description: '',
    protect: false,
    loc: { file: '/w/accord.yaml', line, col: 3 },
    url,
    pooling_enabled: false,
    traffic_policy: POLICY,
  } as unknown as DesiredCloudEndpoint;
}

function account(...listed: LiveObject[]): LiveState {
  const cloud = listed.filter((e) => e['type'] === 'cloud');
  return { ...liveState({ cloud_endpoint: cloud }), endpoints: listed };
}

const planOf = (entries: DesiredCloudEndpoint[], live: LiveState, reportHeldSlots = false) =>
  plan(desiredState({ cloud_endpoints: entries }), live, NOW, { ...OPTIONS, reportHeldSlots });

function refusal(entries: DesiredCloudEndpoint[], live: LiveState): PlanError {
  try {
    planOf(entries, live);
  } catch (err) {
    if (err instanceof PlanError) return err;
    throw err;
  }
  throw new Error('the plan was made');
}

const change = (p: Plan, address: string) => p.changes.find((c) => c.address === address)!;

describe("a cloud endpoint's url changed onto one another endpoint holds", () => {
  it.each([
    [
      'an endpoint accord does not manage',
      liveEndpoint('ep_9', B),
      'cloud_endpoints.a (/w/accord.yaml:2:3): the URL https://b.example.com of a cloud endpoint is held by ep_9, which accord does not manage; adopt it with id: ep_9 on this entry, or change the url, or remove it from the account',
    ],
    [
      "another owner's endpoint",
      liveEndpoint('ep_9', B, { metadata: marker('b', { owner: 'team-b' }) }),
      'cloud_endpoints.a (/w/accord.yaml:2:3): the URL https://b.example.com of a cloud endpoint is held by ep_9, of owner "team-b" (key b); take it over with id: ep_9 and --allow-takeover, or change the url, or remove it from the account',
    ],
  ])('held by %s: refused at the entry, saying the ways out', (_, holder, message) => {
    const err = refusal([entry('a', B, 2)], account(liveEndpoint('ep_1', A, { key: 'a' }), holder));
    expect(err.messages).toEqual([message]);
    expect(err.problems[0]).toMatchObject({
      code: 'slot_held',
      id: 'ep_9',
      holder: { is: expect.any(String) },
    });
  });

  it('held by an agent endpoint: a pool, which the service allows', () => {
    const p = planOf(
      [entry('a', B, 2)],
      account(liveEndpoint('ep_1', A, { key: 'a' }), liveEndpoint('ep_8', B, { type: 'agent' })),
    );
    expect(change(p, 'cloud_endpoints.a')).toMatchObject({ action: 'patch', depends_on: [] });
  });

  it('accord drift lists a holder no entry has as a reason on the PATCH, not a failure', () => {
    const p = planOf(
      [entry('a', B, 2)],
      account(liveEndpoint('ep_1', A, { key: 'a' }), liveEndpoint('ep_9', B)),
      true,
    );
    expect(change(p, 'cloud_endpoints.a').reason_codes).toContainEqual(
      expect.objectContaining({ code: 'slot_held', problem: expect.objectContaining({ id: 'ep_9' }) }),
    );
  });

  it('held by one this plan deletes: the PATCH goes after the delete', () => {
    const p = planOf(
      [{ ...entry('a', B, 2), id: 'ep_1' }],
      account(liveEndpoint('ep_1', A, { key: 'a' }), liveEndpoint('ep_2', B, { key: 'old' })),
    );
    expect(change(p, 'cloud_endpoints.old').action).toBe('delete');
    expect(change(p, 'cloud_endpoints.a').depends_on).toEqual(['cloud_endpoints.old']);
  });

  it('held by one this plan moves elsewhere (a chain): that change first, and --target takes both', () => {
    const live = account(liveEndpoint('ep_1', A, { key: 'a' }), liveEndpoint('ep_9', B));
    const entries = [entry('a', B, 2), { ...entry('x', C, 6), id: 'ep_9' }];
    const p = planOf(entries, live);
    expect(change(p, 'cloud_endpoints.a').depends_on).toEqual(['cloud_endpoints.x']);
    expect(change(p, 'cloud_endpoints.x')).toMatchObject({ action: 'adopt', depends_on: [] });
    const part = plan(desiredState({ cloud_endpoints: entries }), live, NOW, {
      ...OPTIONS,
      selection: { target: ['cloud_endpoints.a'], exclude: [] },
    });
    expect(part.changes.map((c) => c.address).sort()).toEqual(['cloud_endpoints.a', 'cloud_endpoints.x']);
  });

  it("this owner's endpoints exchanging urls are matched by url: their markers swap, no url changes", () => {
    const p = planOf(
      [entry('a', B, 2), entry('b', A, 6)],
      account(liveEndpoint('ep_1', A, { key: 'a' }), liveEndpoint('ep_2', B, { key: 'b' })),
    );
    expect(p.changes.map((c) => [c.address, c.id, c.changed_fields.includes('url')])).toEqual([
      ['cloud_endpoints.a', 'ep_2', false],
      ['cloud_endpoints.b', 'ep_1', false],
    ]);
  });

  it.each([
    [
      'an endpoint and one adopted by id exchanging urls',
      [entry('a', B, 2), { ...entry('x', A, 6), id: 'ep_9' }],
      account(liveEndpoint('ep_1', A, { key: 'a' }), liveEndpoint('ep_9', B)),
      "cloud_endpoints.a (/w/accord.yaml:2:3): 2 changes would take one another's places: cloud_endpoints.a the URL https://b.example.com of a cloud endpoint, which cloud_endpoints.x holds, and cloud_endpoints.x the URL https://a.example.com of a cloud endpoint, which cloud_endpoints.a holds; the service lets one object hold each at any moment, so none of them can go first; change the url of one of them to a free one in an apply of its own first (--target), then plan the rest",
    ],
    [
      'three in a ring',
      [entry('a', B, 2), { ...entry('x', C, 6), id: 'ep_9' }, { ...entry('y', A, 10), id: 'ep_8' }],
      account(liveEndpoint('ep_1', A, { key: 'a' }), liveEndpoint('ep_9', B), liveEndpoint('ep_8', C)),
      expect.stringMatching(
        /^cloud_endpoints\.a \(\/w\/accord\.yaml:2:3\): 3 changes would take one another's places: .*cloud_endpoints\.y the URL https:\/\/a\.example\.com of a cloud endpoint, which cloud_endpoints\.a holds;/,
      ),
    ],
  ])('%s: refused, once', (_, entries, live, message) => {
    const err = refusal(entries, live);
    expect(err.messages).toEqual([message]);
    expect(err.problems.map((p) => p.code)).toEqual(['slot_cycle']);
  });
});

describe('a new entry at a url another cloud endpoint holds', () => {
  const select = (entries: DesiredCloudEndpoint[], live: LiveState, target: string[], exclude: string[]) =>
    plan(desiredState({ cloud_endpoints: entries }), live, NOW, {
      ...OPTIONS,
      selection: { target, exclude },
    }).changes.map((c) => c.address);

  it('held by one this plan adopts and moves elsewhere: the create waits; --target and --exclude take both', () => {
    const live = account(liveEndpoint('ep_9', A));
    const entries = [entry('n', A, 2), { ...entry('x', B, 6), id: 'ep_9' }];
    const p = planOf(entries, live);
    expect(change(p, 'cloud_endpoints.n')).toMatchObject({
      action: 'create',
      depends_on: ['cloud_endpoints.x'],
    });
    expect(change(p, 'cloud_endpoints.x')).toMatchObject({ action: 'adopt', depends_on: [] });
    expect(select(entries, live, ['cloud_endpoints.n'], []).sort()).toEqual([
      'cloud_endpoints.n',
      'cloud_endpoints.x',
    ]);
    expect(select(entries, live, ['cloud_endpoints.*'], ['cloud_endpoints.x'])).toEqual([]);
    expect(select(entries, live, ['cloud_endpoints.*'], ['cloud_endpoints.n'])).toEqual([
      'cloud_endpoints.x',
    ]);
  });

  it("held by this owner's endpoint another entry names with id: and moves: the create waits for it", () => {
    const live = account(liveEndpoint('ep_1', A, { key: 'a' }));
    const p = planOf([{ ...entry('a', B, 2), id: 'ep_1' }, entry('n', A, 6)], live);
    expect(change(p, 'cloud_endpoints.a')).toMatchObject({ action: 'patch', id: 'ep_1' });
    expect(change(p, 'cloud_endpoints.n')).toMatchObject({
      action: 'create',
      depends_on: ['cloud_endpoints.a'],
    });
  });

  it('held by one no change moves: refused at the entry, saying the ways out, or a reason for accord drift', () => {
    const live = account(liveEndpoint('ep_9', A));
    expect(refusal([entry('n', A, 2)], live).messages).toEqual([
      'cloud_endpoints.n (/w/accord.yaml:2:3): the URL https://a.example.com of a cloud endpoint is held by ep_9, which accord does not manage; adopt it with id: ep_9 on this entry, or change the url, or remove it from the account',
    ]);
    const p = planOf([entry('n', A, 2)], live, true);
    expect(change(p, 'cloud_endpoints.n').reason_codes).toContainEqual(
      expect.objectContaining({ code: 'slot_held', problem: expect.objectContaining({ id: 'ep_9' }) }),
    );
  });
});

describe('id: naming an endpoint that is not a cloud endpoint', () => {
  it('says it is an agent endpoint, which accord does not manage, and what to do', () => {
    const live = account(liveEndpoint('ep_8', B, { type: 'agent' }));
    const err = refusal([{ ...entry('app', B, 4), id: 'ep_8' }], live);
    expect(err.problems).toEqual([
      expect.objectContaining({ code: 'id_not_managed', id: 'ep_8', type: 'agent', url: B }),
    ]);
    expect(err.messages).toEqual([
      'cloud_endpoints.app (/w/accord.yaml:4:3): id ep_8 is an agent endpoint (https://b.example.com), which accord does not manage: only cloud endpoints are made and changed through the API, and agent endpoints are made by the agent that runs them. Remove id: to have this entry create a cloud endpoint of its own, or change the endpoint where it runs',
    ]);
  });

  it("while an endpoint carries the entry's marker: the same problem, naming that endpoint, not a warning that the ID is gone", () => {
    const live = account(liveEndpoint('ep_8', B, { type: 'agent' }), liveEndpoint('ep_1', A, { key: 'app' }));
    const err = refusal([{ ...entry('app', A, 4), id: 'ep_8' }], live);
    expect(err.problems).toEqual([
      expect.objectContaining({ code: 'id_not_managed', id: 'ep_8', type: 'agent', url: B, marked: 'ep_1' }),
    ]);
    expect(err.messages).toEqual([
      "cloud_endpoints.app (/w/accord.yaml:4:3): id ep_8 is an agent endpoint (https://b.example.com), which accord does not manage: only cloud endpoints are made and changed through the API, and agent endpoints are made by the agent that runs them. This entry's own cloud endpoint is ep_1 (it carries the entry's marker): remove id: to go on managing it, or change the endpoint where it runs",
    ]);
  });

  it('an adopted cloud endpoint replaced since (its ID gone, the marker on its successor) still warns', () => {
    const live = account(liveEndpoint('ep_8', B, { type: 'agent' }), liveEndpoint('ep_1', A, { key: 'app' }));
    const p = planOf([{ ...entry('app', A, 4), id: 'ep_5' }], live);
    expect(p.warning_codes).toContainEqual(expect.objectContaining({ code: 'id_gone', id: 'ep_5' }));
    expect(change(p, 'cloud_endpoints.app')).toMatchObject({ id: 'ep_1', action: 'no-op' });
  });

  it('an ID the account does not list at all still does not exist', () => {
    const err = refusal(
      [{ ...entry('app', B, 4), id: 'ep_7' }],
      account(liveEndpoint('ep_8', B, { type: 'agent' })),
    );
    expect(err.problems.map((p) => p.code)).toEqual(['id_unknown']);
  });
});
