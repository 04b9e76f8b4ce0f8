import { describe, expect, it } from 'vitest';
import { IdGenerator, isIdOf } from '../../src/server/ids.js';

describe('IdGenerator', () => {
  it('makes strictly increasing IDs within one millisecond and across time', () => {
    let ms = Date.parse('2026-01-01T00:00:00Z');
    const ids = new IdGenerator(() => new Date(ms));
    const made: string[] = [];
    for (let i = 0; i < 1000; i++) made.push(ids.next('ip_restriction'));
    ms += 1;
    made.push(ids.next('ip_restriction'));
    expect([...made].sort()).toEqual(made);
    expect(new Set(made).size).toBe(made.length);
    for (const id of made) expect(isIdOf('ip_restriction', id)).toBe(true);
  });

  it('sorts generated IDs after hand-written seed IDs and by time', () => {
    const early = new IdGenerator(() => new Date('2020-01-01T00:00:00Z')).next('ip_policy');
    const late = new IdGenerator(() => new Date('2100-01-01T00:00:00Z')).next('ip_policy');
    expect(early > 'ipp_2demoOffice0000000000000000').toBe(true);
    expect(late > early).toBe(true);
    expect(late).toMatch(/^ipp_5[0-9A-Za-z]{26}$/);
  });
});
