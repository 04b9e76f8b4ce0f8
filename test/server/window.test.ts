import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RequestLog } from '../../src/server/window.js';

describe('RequestLog', () => {
  it('lets `limit` requests through per window and says when the oldest leaves', () => {
    const log = new RequestLog(2, 1000);
    expect([log.admit(0), log.admit(100), log.admit(400)]).toEqual([0, 0, 600]);
    expect(log.admit(999)).toBe(1);
    // The request at 0 counts until 1000, exclusive.
    expect(log.admit(1000)).toBe(0);
    expect(log.admit(1050)).toBe(50);
    expect(log.admit(1100)).toBe(0);
  });

  it('never lets more than `limit` through in any window, and refuses only a full one', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.array(fc.integer({ min: 0, max: 600 }), { maxLength: 60 }),
        (limit, windowMs, gaps) => {
          const log = new RequestLog(limit, windowMs);
          const through: number[] = [];
          let now = 0;
          for (const gap of gaps) {
            now += gap;
            const inWindow = through.filter((t) => t + windowMs > now);
            const wait = log.admit(now);
            if (wait === 0) through.push(now);
            else {
              expect(inWindow.length).toBe(limit);
              expect(wait).toBe(inWindow[0]! + windowMs - now);
            }
            expect(through.filter((t) => t + windowMs > now).length).toBeLessThanOrEqual(limit);
          }
        },
      ),
    );
  });
});
