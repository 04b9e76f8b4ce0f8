import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { edgeOfScope, edgeScope, isEdgeScope } from '../../src/resources/scope.js';
import { TRAFFIC_TYPES } from '../../src/traffic/reach.js';

describe('reach scope names', () => {
  it('an edge scope gives back its edge; a traffic type and all are no edge', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^edgtcp_[A-Za-z0-9]{1,27}$/), (edge) => {
        expect(edgeOfScope(edgeScope(edge))).toBe(edge);
        expect(isEdgeScope(edgeScope(edge))).toBe(true);
      }),
    );
    for (const scope of [...TRAFFIC_TYPES, 'all']) {
      expect(edgeOfScope(scope)).toBeUndefined();
      expect(isEdgeScope(scope)).toBe(false);
    }
    expect(edgeScope('edgtcp_x')).toBe('tcp_edges.edgtcp_x');
  });
});
