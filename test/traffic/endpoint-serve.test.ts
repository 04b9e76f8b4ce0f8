// Never fail open while endpoint restrictions change, against `accord serve` (docs/reach.md "Why a
// guard that holds before and after holds throughout the apply"): a restriction moved between the
// account-wide `endpoints` restriction and an endpoint's own restrict-ips, in both directions; the
// rules of the policy that restriction names narrowed while an endpoint widens; an endpoint deleted
// while a policy it names widens. After every write, in whatever order the requests overtake each
// other and with any one write failing, each endpoint lets in at most what the old or the new files
// let in, and at least what both do.
import { afterEach, describe, expect, it } from 'vitest';
import { applyWatched, closeServed, planOf, type Side, served, staysBetween } from './endpoint-serve.js';

afterEach(closeServed);

const office = { allow: ['10.0.0.0/8'], deny: [] };
const plain = (restriction: string[] | undefined, shop: string[] | undefined): Side => ({
  policies: { office },
  ...(restriction ? { restriction } : {}),
  endpoints: { shop },
});

describe('moves between the endpoints restriction and an endpoint restriction', () => {
  // Every order the writes can take, and each write failing in turn.
  const runs: [number[], number | undefined][] = [
    [[0], undefined],
    [[3, 0], undefined],
    [[0, 3], undefined],
    [[0], 1],
    [[0], 2],
  ];
  it.each(runs)(
    'from the endpoints restriction to the endpoint (delays %j, failing write %s)',
    async (d, f) => {
      const seen = await staysBetween(plain(['office'], undefined), plain(undefined, ['office']), d, f);
      expect(seen).toBeGreaterThanOrEqual(f === undefined ? 2 : f - 1);
    },
  );
  it.each(runs)(
    'from the endpoint to the endpoints restriction (delays %j, failing write %s)',
    async (d, f) => {
      const seen = await staysBetween(plain(undefined, ['office']), plain(['office'], undefined), d, f);
      expect(seen).toBeGreaterThanOrEqual(f === undefined ? 2 : f - 1);
    },
  );
  it('orders the endpoint PATCH before the delete of the restriction', async () => {
    const s = await served();
    await applyWatched(s, await planOf(s, plain(['office'], undefined), 'from'), {
      delays: () => 0,
      after: async () => {},
    });
    const plan = await planOf(s, plain(undefined, ['office']), 'to');
    const del = plan.changes.find((c) => c.address === 'ip_restrictions.ep')!;
    expect(del.action).toBe('delete');
    expect(del.depends_on).toContain('cloud_endpoints.shop');
  });
});

describe('rules of the policy the endpoints restriction names, against an endpoint change', () => {
  // The endpoints restriction's k narrows from 10.0.0.0/8 to 10.1.0.0/16 while shop's own restriction
  // widens from 10.1.0.0/16 to 10.0.0.0/8: before and after, 10.1.0.0/16 only.
  const from: Side = {
    policies: { k: { allow: ['10.0.0.0/8'], deny: [] }, n: { allow: ['10.1.0.0/16'], deny: [] }, w: office },
    restriction: ['k'],
    endpoints: { shop: ['n'] },
  };
  const to: Side = {
    policies: { k: { allow: ['10.1.0.0/16'], deny: [] }, n: { allow: ['10.1.0.0/16'], deny: [] }, w: office },
    restriction: ['k'],
    endpoints: { shop: ['w'] },
  };
  it.each([[[0]], [[2, 0, 0]], [[0, 0, 2]]])('keeps shop within 10.1.0.0/16 (delays %j)', async (d) => {
    expect(await staysBetween(from, to, d)).toBeGreaterThan(0);
  });
  it.each([1, 2, 3])('and when write %d fails', async (f) => {
    expect(await staysBetween(from, to, [0, 1], f)).toBeGreaterThanOrEqual(0);
  });
});

describe('an endpoint deleted while a policy it names widens', () => {
  const from: Side = {
    policies: { p: { allow: ['10.1.0.0/16'], deny: [] } },
    endpoints: { shop: ['p'], cart: undefined },
  };
  const to: Side = { policies: { p: { allow: ['10.0.0.0/8'], deny: [] } }, endpoints: { cart: undefined } };
  it.each([[[0]], [[3, 0]], [[0, 3]]])(
    'the endpoint goes before the policy widens (delays %j)',
    async (d) => {
      expect(await staysBetween(from, to, d)).toBeGreaterThan(0);
    },
  );
  it('says so in the plan', async () => {
    const s = await served();
    await applyWatched(s, await planOf(s, from, 'from'), { delays: () => 0, after: async () => {} });
    const plan = await planOf(s, to, 'to');
    const widen = plan.changes.find((c) => c.action === 'create' && c.kind === 'ip_policy_rule')!;
    expect(widen.depends_on).toContain('cloud_endpoints.shop');
  });
});
