// Problems of the file said exactly: where, what, and what to do (each problem whole, and no other).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { problemsOf, Scratch, y } from './helpers.js';

let scratch: Scratch;
beforeEach(() => {
  scratch = new Scratch();
});
afterEach(() => scratch.remove());

const said = async (text: string) =>
  (await problemsOf(scratch, text)).map((p) => `${p.line}:${p.col} ${p.path}: ${p.message}`);

const policy = (...rules: string[]) =>
  y('version: 1', 'owner: x', 'ip_policies:', '  p:', '    rules:', ...rules);

describe('a list item out of line with the item above', () => {
  it.each([
    [
      'one space short',
      policy('      - allow: 10.0.0.0/8', '     - allow: 11.0.0.0/8'),
      '7:6 : this list item\'s "-" is at column 6, and the item above it (line 6) has its "-" at column 7; indent every "-" of a list alike, with spaces',
    ],
    [
      'one space over',
      policy('     - allow: 10.0.0.0/8', '      - allow: 11.0.0.0/8'),
      '7:7 : this list item\'s "-" is at column 7, and the item above it (line 6) has its "-" at column 6; indent every "-" of a list alike, with spaces',
    ],
    [
      'below an item of several lines',
      policy('      - allow: 10.0.0.0/8', '        description: office', '', '     - deny: 10.1.0.0/16'),
      '9:6 : this list item\'s "-" is at column 6, and the item above it (line 6) has its "-" at column 7; indent every "-" of a list alike, with spaces',
    ],
  ])('%s: one problem that says so', async (_, text, problem) => {
    expect(await said(text)).toEqual([problem]);
  });
});

describe('a CIDR given twice in a policy', () => {
  it('names the index of the rule that has it first', async () => {
    const rules = ['allow: 10.0.0.0/8', 'allow: 11.0.0.0/8', 'deny: 10.0.0.0/8'].map((r) => `      - ${r}`);
    expect(await said(policy(...rules))).toEqual([
      '8:15 ip_policies.p.rules[2].deny: 10.0.0.0/8 is already a rule of this policy (rules[0]); a policy holds each CIDR once, whatever the action: keep one',
    ]);
  });
});

describe("a guard's key that is no scope", () => {
  it.each([
    ['dashbaord', '; did you mean "dashboard"?'],
    ['edgtcp_1', '; did you mean "tcp_edges.edgtcp_1"?'],
    ['office', ''],
  ])('%s: the scopes there are, and the one it may mean', async (key, hint) => {
    expect(await said(y('version: 1', 'guards:', `  ${key}:`, '    enforced: true'))).toEqual([
      `3:3 guards.${key}: "${key}" is not a scope: guard dashboard, api, agent, endpoints, all, a TCP edge as tcp_edges.<edge ID> (tcp_edges.edgtcp_...), or an endpoint as cloud_endpoints.<key> or by its URL (https://...)${hint}`,
    ]);
  });
});
