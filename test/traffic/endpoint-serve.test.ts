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

describe('orders judged on the states the plan itself allows', () => {
  it('a deny and an allow of the named policy in the order that keeps the endpoint, then the PATCH', async () => {
    // Any subset of k's new rules before the PATCH would let 172.16.0.0/16 in (its allow without its
    // deny); the plan's own order writes the deny first, so no state does.
    const from: Side = { policies: { k: { allow: ['10.0.0.0/8'], deny: [] } }, endpoints: { shop: ['k'] } };
    const to: Side = {
      policies: {
        k: { allow: ['10.0.0.0/8', '172.16.0.0/12'], deny: ['172.16.0.0/16'] },
        p: { allow: ['172.16.0.0/12'], deny: [] },
      },
      endpoints: { shop: ['k', 'p'] },
    };
    for (const delays of [[0], [2, 0], [0, 0, 3]])
      expect(await staysBetween(from, to, delays)).toBeGreaterThan(2);
    expect(await staysBetween(from, to, [0], 2)).toBeGreaterThanOrEqual(1);
  });
  // shop goes [k] -> [k, p] while cart goes [k, p] -> [k], k gains 172.16.0.0/12 and p's rules change:
  // the reference order of cart's old policies (p's new deny before k's new allow) is only a proposal,
  // which a safe order (k's allow, cart, p's rules, shop) overrides.
  const p = (allow: string[], deny: string[] = []) => ({ allow, deny });
  it.each([
    [p(['10.0.0.0/8']), p(['10.0.0.0/8'], ['10.1.0.0/16', '10.1.2.0/24'])],
    [
      p(['2001:db8::/32', '172.16.0.0/16'], ['172.16.0.0/12']),
      p(['10.1.2.0/24', '0.0.0.0/0'], ['172.16.0.0/16']),
    ],
    [p(['172.16.0.0/16', '2001:db8::/32']), p(['10.1.0.0/16'], ['10.1.2.0/24'])],
  ])('two endpoints moving opposite ways over the same policies (p %j to %j)', async (was, will) => {
    const k = p(['10.0.0.0/8']);
    const from: Side = { policies: { k, p: was }, endpoints: { shop: ['k'], cart: ['k', 'p'] } };
    const to: Side = {
      policies: { k: p(['10.0.0.0/8', '172.16.0.0/12']), p: will },
      endpoints: { shop: ['k', 'p'], cart: ['k'] },
    };
    for (const delays of [[0], [3, 0], [0, 2, 1]])
      expect(await staysBetween(from, to, delays)).toBeGreaterThan(2);
  });
});
