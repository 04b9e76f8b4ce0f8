import { describe, expect, it } from 'vitest';
import { type LiveSource, readLiveState, UnexpectedResponseError } from '../../src/account/read.js';
import { managedDescriptors } from '../../src/resources/index.js';
import { desiredState, tcpModule, wsModule } from './fixtures.js';

class RecordingSource implements LiveSource {
  readonly requests: string[] = [];
  constructor(
    private readonly lists: Record<string, unknown[]>,
    private readonly objects: Record<string, unknown> = {},
  ) {}
  async *listAll<T>(path: string, listKey: string): AsyncIterable<T> {
    this.requests.push(`LIST ${path} ${listKey}`);
    for (const item of this.lists[path] ?? []) yield item as T;
  }
  async getOptional<T>(path: string): Promise<T | undefined> {
    this.requests.push(`GET ${path}`);
    return this.objects[path] as T | undefined;
  }
}

describe('readLiveState', () => {
  it('lists every managed kind once and GETs only the modules the file names', async () => {
    const source = new RecordingSource(
      { '/ip_restrictions': [{ id: 'ipx_1' }] },
      { '/edges/tcp/edgtcp_1/ip_restriction': { enabled: true, ip_policies: [] } },
    );
    const desired = desiredState({
      tcp_edge_ip_restrictions: [tcpModule('edgtcp_1')],
      websocket_tcp_converters: [wsModule('edghts_1', 'edghtsrt_1', { state: 'absent' })],
    });
    const live = await readLiveState(source, desired);
    expect(source.requests.sort()).toEqual([
      'GET /edges/https/edghts_1/routes/edghtsrt_1/websocket_tcp_converter',
      'GET /edges/tcp/edgtcp_1/ip_restriction',
      ...managedDescriptors
        .filter((d) => !d.listedOnlyWhenWritten)
        .map((d) => `LIST ${d.collectionPath} ${d.listKey}`)
        .sort(),
    ]);
    expect(live.endpoints).toBeUndefined();
    expect(live.managed.ip_restriction).toEqual([{ id: 'ipx_1' }]);
    expect(live.modules).toEqual({
      'tcp_edges.edgtcp_1.ip_restriction': { enabled: true, ip_policies: [] },
      'https_edges.edghts_1.routes.edghtsrt_1.websocket_tcp_converter': null,
    });
  });

  it('lists the endpoints only for files that write cloud_endpoints, an empty section included: the kind its cloud ones, reach all', async () => {
    const listed = [
      { id: 'ep_1', type: 'cloud', url: 'https://a.example.com' },
      { id: 'ep_2', type: 'agent', url: 'https://b.example.com' },
      { id: 'ep_3', type: 'edge', url: 'https://c.example.com' },
    ];
    const source = new RecordingSource({ '/endpoints': listed }, {});
    const without = await readLiveState(source, desiredState({}));
    expect(source.requests).not.toContain('LIST /endpoints endpoints');
    expect(without.managed.cloud_endpoint).toEqual([]);
    expect(without.endpoints).toBeUndefined();
    const live = await readLiveState(source, { ...desiredState({}), written: ['cloud_endpoints'] });
    expect(source.requests.filter((r) => r === 'LIST /endpoints endpoints')).toHaveLength(1);
    expect(live.managed.cloud_endpoint).toEqual([listed[0]]);
    expect(live.endpoints).toEqual(listed);
  });

  it('rejects list items that are not resources', async () => {
    const source = new RecordingSource({ '/ssh_host_certificates': [{ name: 'x' }] });
    await expect(readLiveState(source, desiredState())).rejects.toThrow(UnexpectedResponseError);
  });
});
