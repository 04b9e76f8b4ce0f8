import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPlanFile } from '../../src/apply/planfile.js';

describe('readPlanFile', () => {
  it('refuses a hand-edited request path that climbs out with .. before anything is sent', () => {
    const dir = mkdtempSync(join(tmpdir(), 'accord-planfile-'));
    const plan = JSON.parse(readFileSync(new URL('./fixtures/plan.json', import.meta.url), 'utf8'));
    const file = join(dir, 'plan.json');
    writeFileSync(file, JSON.stringify(plan));
    expect(readPlanFile(file, 'plan.json').changes).toHaveLength(1);
    for (const path of ['/ssh_host_certificates/../admin', '/ssh_host_certificates/%2e%2e/admin']) {
      plan.changes[0].requests[0].path = path;
      writeFileSync(file, JSON.stringify(plan));
      expect(() => readPlanFile(file, 'plan.json')).toThrow(
        'plan.json: ssh_host_certificates.bastion has a request path that is not relative to the API URL',
      );
    }
  });

  it('refuses a plan whose order is broken: a repeated address, a dependency on itself or on nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'accord-planfile-'));
    const file = join(dir, 'plan.json');
    const fresh = () => JSON.parse(readFileSync(new URL('./fixtures/plan.json', import.meta.url), 'utf8'));
    const address = fresh().changes[0].address as string;
    const cases: Array<[(plan: { changes: Array<Record<string, unknown>> }) => void, string]> = [
      [(p) => p.changes.push({ ...p.changes[0] }), `${address} appears twice`],
      [
        (p) => {
          p.changes[0]!['depends_on'] = [address];
        },
        `${address} depends on itself`,
      ],
      [
        (p) => {
          p.changes[0]!['depends_on'] = ['ip_restrictions.gone'];
        },
        `${address} depends on ip_restrictions.gone, which is not in the plan`,
      ],
    ];
    for (const [edit, message] of cases) {
      const plan = fresh();
      edit(plan);
      writeFileSync(file, JSON.stringify(plan));
      expect(() => readPlanFile(file, 'plan.json')).toThrow(`plan.json: ${message}`);
    }
  });
});
