// The shared shapes: an edge module's place gives its addresses, identities and API paths.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { moduleDescriptors } from '../../src/resources/index.js';
import { tcpEdgeIpRestriction } from '../../src/resources/tcp_edge_ip_restriction.js';
import { websocketTcpConverter } from '../../src/resources/websocket_tcp_converter.js';

describe('edge module places', () => {
  it.each([
    {
      d: tcpEdgeIpRestriction,
      m: { edge_id: 'edgtcp_1' },
      address: 'tcp_edges.edgtcp_1.ip_restriction',
      key: 'edgtcp_1',
      id: 'edgtcp_1',
      path: '/edges/tcp/edgtcp_1/ip_restriction',
    },
    {
      d: websocketTcpConverter,
      m: { edge_id: 'edghts_1', route_id: 'edghtsrt_2' },
      address: 'https_edges.edghts_1.routes.edghtsrt_2.websocket_tcp_converter',
      key: 'edghts_1.edghtsrt_2',
      id: 'edghtsrt_2',
      path: '/edges/https/edghts_1/routes/edghtsrt_2/websocket_tcp_converter',
    },
  ])('$address', ({ d, m, address, key, id, path }) => {
    expect(d.address(m)).toBe(address);
    expect(d.identify(address)).toEqual(m);
    expect([d.key(m), d.id(m), d.path(m)]).toEqual([key, id, path]);
  });

  it('lists routes of an HTTPS edge, and none of a TCP edge', () => {
    expect(websocketTcpConverter.edge.routesPath?.('edghts_1')).toBe('/edges/https/edghts_1/routes');
    expect(tcpEdgeIpRestriction.edge.routesPath).toBeUndefined();
  });

  it('identifies each address it makes as its identity, and no other kind does', () => {
    const id = fc.stringMatching(/^[A-Za-z0-9_]{1,20}$/);
    fc.assert(
      fc.property(fc.constantFrom(...moduleDescriptors), id, id, (d, edge, route) => {
        const m = d.edge.routesPath ? { edge_id: edge, route_id: route } : { edge_id: edge };
        const address = d.address(m);
        expect(d.identify(address)).toEqual(m);
        for (const other of moduleDescriptors)
          if (other !== d) expect(other.identify(address)).toBeUndefined();
        expect(d.identify(`${address}.x`)).toBeUndefined();
      }),
    );
  });
});
