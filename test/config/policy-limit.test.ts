// A restriction or a TCP edge module names at most 100 IP policies (the service refuses more): validate
// says so at the list, whether the policies are keys of the file or live IDs.
import { afterAll, describe, expect, it } from 'vitest';
import { problemsOf, Scratch, y } from './helpers.js';

const ids = (n: number) => Array.from({ length: n }, (_, i) => `ipp_${String(i).padStart(27, '0')}`);

describe('the 100-policy limit', () => {
  const s = new Scratch();
  afterAll(() => s.remove());

  it('refuses 101 policies in a restriction at the list, and takes 100', async () => {
    const file = (n: number) =>
      y(
        'version: 1',
        'ip_restrictions:',
        '  office:',
        '    type: dashboard',
        '    enforced: true',
        `    ip_policies: [${ids(n).join(', ')}]`,
      );
    const problems = await problemsOf(s, file(101));
    expect(problems.map((p) => `${p.line}:${p.col} ${p.path}: ${p.message}`)).toEqual([
      '6:18 ip_restrictions.office.ip_policies: lists 101 items; the service accepts at most 100: name fewer (move the rules of some of these IP policies into the others)',
    ]);
    s.write('accord.yaml', file(100));
    await expect(problemsOf(s)).rejects.toThrow('expected a ConfigError');
  });

  it('refuses 101 policies in a TCP edge module', async () => {
    const text = y(
      'version: 1',
      'tcp_edges:',
      '  edgtcp_1:',
      '    ip_restriction:',
      '      ip_policies:',
      ...ids(101).map((id) => `        - ${id}`),
    );
    const problems = await problemsOf(s, text);
    expect(problems).toHaveLength(1);
    expect(`${problems[0]!.line}:${problems[0]!.path}`).toBe(
      '6:tcp_edges.edgtcp_1.ip_restriction.ip_policies',
    );
    expect(problems[0]!.message).toContain('lists 101 items; the service accepts at most 100');
  });
});
