// Listing the TCP edges and the endpoints before a policy delete (DESIGN §2): every page, each edge with its module
// inline; a service without that list (the production service retired edges) is `unavailable`, which
// the plan turns into a warning; any other failure is an error.
import { describe, expect, it } from 'vitest';
import { liveEndpoints } from '../../src/account/endpoints.js';
import { type LiveSource, readEndpoints, readTcpEdges } from '../../src/account/read.js';
import { ApiError } from '../../src/api/errors.js';

function source(answer: () => unknown[]): LiveSource & { listed: string[] } {
  const listed: string[] = [];
  return {
    listed,
    async *listAll<T>(path: string): AsyncIterable<T> {
      listed.push(path);
      for (const item of answer()) yield item as T;
    },
    getOptional: async () => undefined,
  };
}

const refusal = (status: number) => () => {
  throw new ApiError({ status, method: 'GET', path: '/edges/tcp?limit=100', msg: 'no' });
};

describe('readTcpEdges', () => {
  it('lists /edges/tcp with the modules inline', async () => {
    const edges = [
      { id: 'edgtcp_1', ip_restriction: null },
      { id: 'edgtcp_2', ip_restriction: { ip_policies: [] } },
    ];
    const s = source(() => edges);
    expect(await readTcpEdges(s)).toEqual(edges);
    expect(s.listed).toEqual(['/edges/tcp']);
  });

  it.each([404, 405, 410])('is unavailable when the service answers %i', async (status) => {
    expect(await readTcpEdges(source(refusal(status)))).toBe('unavailable');
  });

  it('fails on anything else', async () => {
    await expect(readTcpEdges(source(refusal(401)))).rejects.toMatchObject({ status: 401 });
    await expect(readTcpEdges(source(() => [{ name: 'no id' }]))).rejects.toMatchObject({
      code: 'ACCORD_UNEXPECTED_RESPONSE',
    });
  });
});

describe('readEndpoints', () => {
  it('lists /endpoints, every type, each typed with its traffic policy parsed (YAML or JSON)', async () => {
    const endpoints = [
      { id: 'ep_1', type: 'cloud', url: 'https://a.example.com', traffic_policy: '{"on_http_request": []}' },
      { id: 'ep_2', type: 'agent', url: 'tcp://1.tcp.example.com:20001', traffic_policy: '' },
      { id: 'ep_3', type: 'agent', url: 'https://b.example.com', traffic_policy: 'on_tcp_connect: [' },
      { id: 'ep_4', type: 'agent', url: 'https://c.example.com', traffic_policy: '- a list' },
    ];
    const s = source(() => endpoints);
    const listed = await readEndpoints(s);
    expect(s.listed).toEqual(['/endpoints']);
    expect(liveEndpoints(listed)).toEqual([
      { id: 'ep_1', type: 'cloud', url: 'https://a.example.com', document: { on_http_request: [] } },
      { id: 'ep_2', type: 'agent', url: 'tcp://1.tcp.example.com:20001', document: undefined },
      expect.objectContaining({ id: 'ep_3', document: undefined, unreadable: expect.any(String) }),
      expect.objectContaining({ id: 'ep_4', document: undefined, unreadable: 'NOT_A_MAPPING' }),
    ]);
  });

  it.each([404, 405, 410])('is unavailable when the service answers %i', async (status) => {
    expect(await readEndpoints(source(refusal(status)))).toBe('unavailable');
    expect(liveEndpoints('unavailable')).toBe('unavailable');
  });

  it('fails on anything else', async () => {
    await expect(readEndpoints(source(refusal(500)))).rejects.toMatchObject({ status: 500 });
  });
});
