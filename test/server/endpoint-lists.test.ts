// GET /endpoints: paging as every list, and the filters `ids` and `urls`, each repeated or
// comma-separated, together meaning both; a filtered list pages with its filters kept.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { AGENT_TCP, AGENT_WEB, useEndpointApi } from './endpoint-helpers.js';

const service = useEndpointApi();
const N = 6;
/** Newest first, as listed: made[N-1] ... made[0], then the two seeded agent endpoints. */
let made: { id: string; url: string }[] = [];
let all: string[] = [];

beforeAll(async () => {
  made = [];
  for (let i = 0; i < N; i++) {
    const url = i % 2 === 0 ? `https://e${i}.example.com` : `tcp://${i}.tcp.example.com:3000${i}`;
    const reply = await service.api.call('POST', '/endpoints', { type: 'cloud', url, traffic_policy: '{}' });
    expect(reply.status).toBe(201);
    made.push({ id: reply.body.id, url });
  }
  all = [...made.map((e) => e.id).reverse(), AGENT_WEB, AGENT_TCP];
});

/** Every ID a listing yields, following next_page_uri, and the pages' sizes. */
async function pageThrough(first: string): Promise<{ ids: string[]; sizes: number[]; nexts: string[] }> {
  const ids: string[] = [];
  const sizes: number[] = [];
  const nexts: string[] = [];
  let next: string | null = first;
  while (next) {
    const page = await service.api.call('GET', next);
    expect(page.status).toBe(200);
    ids.push(...page.body.endpoints.map((e: { id: string }) => e.id));
    sizes.push(page.body.endpoints.length);
    next = page.body.next_page_uri;
    if (next) nexts.push(next);
  }
  return { ids, sizes, nexts };
}

const id = (i: number) => made[i]!.id;
const url = (i: number) => made[i]!.url;

describe('the endpoint list', () => {
  it('pages newest first with limit and before_id, seeded agent endpoints last', async () => {
    const { ids, sizes } = await pageThrough('/endpoints?limit=3');
    expect(ids).toEqual(all);
    expect(sizes).toEqual([3, 3, 2]);
    expect((await pageThrough(`/endpoints?before_id=${id(3)}`)).ids).toEqual(all.slice(N - 3));
  });

  it.each([
    ['ids repeated', () => `ids=${id(0)}&ids=${id(4)}`, () => [id(4), id(0)]],
    ['ids comma-separated', () => `ids=${id(0)},${id(4)},${AGENT_TCP}`, () => [id(4), id(0), AGENT_TCP]],
    ['ids both ways', () => `ids=${id(1)},${id(2)}&ids=${id(5)}`, () => [id(5), id(2), id(1)]],
    ['an ID no endpoint has', () => `ids=ep_${'2none'.padEnd(27, '0')}`, () => []],
    ['urls repeated', () => `urls=${url(0)}&urls=${encodeURIComponent(url(1))}`, () => [id(1), id(0)]],
    ['urls comma-separated', () => `urls=${url(2)},https://web.example.com`, () => [id(2), AGENT_WEB]],
    [
      'a URL by another spelling',
      () => `urls=${encodeURIComponent('HTTPS://E4.example.com:443')}`,
      () => [id(4)],
    ],
    ['a URL no endpoint has', () => 'urls=https://none.example.com', () => []],
    ['ids and urls: both must match', () => `ids=${id(0)},${id(2)}&urls=${url(2)},${url(4)}`, () => [id(2)]],
    ['empty filters, as absent', () => 'ids=&urls=', () => all],
  ])('filters: %s', async (_what, query, expected) => {
    const reply = await service.api.call('GET', `/endpoints?${query()}`);
    expect(reply.status).toBe(200);
    expect(reply.body.endpoints.map((e: { id: string }) => e.id)).toEqual(expected());
    expect(reply.body.uri).toBe(`${service.api.server.url}/endpoints?${query()}`);
    expect(reply.body.next_page_uri).toBeNull();
  });

  it('keeps the filters in next_page_uri', async () => {
    const query = `ids=${id(0)},${id(1)}&ids=${id(3)}&urls=${url(0)},${encodeURIComponent(url(3))},${url(5)}&limit=1`;
    const { ids, nexts } = await pageThrough(`/endpoints?${query}`);
    expect(ids).toEqual([id(3), id(0)]);
    expect(nexts).toHaveLength(1);
    const next = new URL(nexts[0]!);
    expect(next.searchParams.get('ids')).toBe(`${id(0)},${id(1)},${id(3)}`);
    expect(next.searchParams.get('before_id')).toBe(id(3));
  });

  it('lists, page after page, exactly the endpoints every filter names, newest first', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.subarray([...Array(N).keys(), N, N + 1]),
        fc.option(fc.subarray([...Array(N).keys()]), { nil: undefined }),
        fc.integer({ min: 1, max: 4 }),
        fc.boolean(),
        async (byId, byUrl, limit, repeated) => {
          const ids = byId.map((i) => all[all.length - 1 - i]!);
          const urls = byUrl?.map((i) => encodeURIComponent(url(i)));
          const param = (name: string, values: string[]) =>
            repeated ? values.map((v) => `${name}=${v}`).join('&') : `${name}=${values.join(',')}`;
          const query = [param('ids', ids), urls ? param('urls', urls) : '', `limit=${limit}`].filter(
            (p) => p !== '',
          );
          // An empty urls filter (`urls=`) is no filter, as an absent one.
          const byUrlIds = byUrl && byUrl.length > 0 ? byUrl.map(id) : undefined;
          const expected = all.filter(
            (e) => (ids.length === 0 || ids.includes(e)) && (!byUrlIds || byUrlIds.includes(e)),
          );
          const { ids: listed, sizes } = await pageThrough(`/endpoints?${query.join('&')}`);
          expect(listed).toEqual(expected);
          for (const size of sizes) expect(size).toBeLessThanOrEqual(limit);
        },
      ),
      { numRuns: 40 },
    );
  });
});
