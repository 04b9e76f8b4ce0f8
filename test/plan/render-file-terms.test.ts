// The text and Markdown plans speak the file's language (its names and forms) and show what a
// reviewer needs: an IP restriction's type on every change, a swap named as one, valid_for as written,
// lifecycle.prevent_destroy, whole-second timestamps, and a note when valid_for no longer matches a
// live certificate. Whole outputs, so that any drift in wording shows here.
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/plan/planner.js';
import { renderJson } from '../../src/plan/render/json.js';
import { renderMarkdown } from '../../src/plan/render/markdown.js';
import { renderText } from '../../src/plan/render/text.js';
import type { LiveState } from '../../src/plan/state.js';
import type { Plan } from '../../src/plan/types.js';
import {
  cert,
  desiredState,
  emptyLive,
  IPP_1,
  IPP_2,
  ipr,
  KEY_A,
  liveCert,
  liveIpr,
  marker,
  NOW,
  OPTIONS,
} from './fixtures.js';

function live(parts: Partial<LiveState['managed']>): LiveState {
  const l = emptyLive();
  Object.assign(l.managed, parts);
  return l;
}

const text = (p: Plan) => renderText(p, { color: false });
/** The Markdown from its table on (the head is the same for every plan). */
const table = (p: Plan) => {
  const md = renderMarkdown(p);
  return md.slice(md.indexOf('| Action'));
};

describe('plans in the terms of the file', () => {
  it('a swap of types: each change shows its type, says it is a swap, and what else changes', () => {
    const p = plan(
      desiredState({
        ip_restrictions: [
          ipr('office', { type: 'api', enforced: true }),
          ipr('vpn', { type: 'dashboard', enforced: false, ip_policy_ids: [IPP_2] }),
        ],
      }),
      live({
        ip_restriction: [
          liveIpr('ipx_1', { type: 'dashboard', enforced: true, metadata: marker('office') }, [IPP_1]),
          liveIpr('ipx_2', { type: 'api', enforced: true, metadata: marker('vpn') }, [IPP_1]),
        ],
      }),
      NOW,
      OPTIONS,
    );
    expect(text(p)).toBe(TODO);
    expect(table(p)).toBe(TODO);
    // JSON: the type is in before and after of each change.
    const json = JSON.parse(renderJson(p)) as Plan;
    expect(json.changes.map((c) => [c.address, c.before?.['type'], c.after?.['type']])).toEqual([
      ['ip_restrictions.office', 'api', 'api'],
      ['ip_restrictions.vpn', 'dashboard', 'dashboard'],
    ]);
  });

  it('a create with valid_for shows the duration as the file writes it, and whole-second timestamps', () => {
    const p = plan(
      desiredState({
        ssh_host_certificates: [
          cert('web', { valid_for_seconds: 90 * 86_400, valid_after: '2027-01-01T00:00:00.000Z' }),
        ],
      }),
      emptyLive(),
      NOW,
      OPTIONS,
    );
    expect(text(p)).toBe(TODO);
    expect(table(p)).toBe(TODO);
  });

  it('lifecycle.prevent_destroy, not protect', () => {
    const p = plan(
      desiredState({ ip_restrictions: [ipr('office', { protect: true })] }),
      live({ ip_restriction: [liveIpr('ipx_1', { metadata: marker('office') })] }),
      NOW,
      OPTIONS,
    );
    expect(text(p)).toBe(TODO);
    expect(table(p)).toBe(TODO);
  });

  it('valid_for changed on an existing certificate: no change, and a note on how to renew', () => {
    const p = plan(
      desiredState({ ssh_host_certificates: [cert('web', { valid_for_seconds: 30 * 86_400 })] }),
      live({
        ssh_host_certificate: [
          liveCert('shcrt_1', {
            metadata: marker('web'),
            public_key: `${KEY_A} host@x`,
            created_at: '2026-11-01T00:00:00Z',
            valid_after: '2026-11-01T00:00:00Z',
            valid_until: '2027-01-30T00:00:00Z',
          }),
        ],
      }),
      NOW,
      OPTIONS,
    );
    expect(text(p)).toBe(TODO);
    expect(renderMarkdown(p)).toBe(TODO);
  });
});

const TODO = 'TODO';
