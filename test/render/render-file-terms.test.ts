// The text and Markdown plans speak the file's language (its names and forms) and show what a
// reviewer needs: an IP restriction's type on every change, a swap named as one, valid_for as written,
// lifecycle.prevent_destroy, whole-second timestamps, and a note when valid_for no longer matches a
// live certificate. Whole outputs, so that any drift in wording shows here.
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/cli/worded-plan.js';
import type { DesiredState } from '../../src/config/model.js';
import type { Plan } from '../../src/plan/types.js';
import { renderJson } from '../../src/render/json.js';
import { renderMarkdown } from '../../src/render/markdown.js';
import { renderText } from '../../src/render/text.js';
import {
  cert,
  desiredState,
  emptyLive,
  IPP_2,
  ipr,
  KEY_A,
  liveCert,
  liveState,
  marker,
  NOW,
  OPTIONS,
} from '../plan/fixtures.js';
import { FakeAccount } from '../support/account.js';

/** Plans `second` against an account where accord applied `first` (markers with fingerprints). */
function planAfter(first: DesiredState, second: DesiredState): Plan {
  const account = new FakeAccount(NOW);
  account.execute(plan(first, account.live(first), NOW, OPTIONS));
  return plan(second, account.live(second), NOW, OPTIONS);
}

const text = (p: Plan) => renderText(p, { color: false });
/** The Markdown from its table on (the head is the same for every plan). */
const table = (p: Plan) => {
  const md = renderMarkdown(p);
  return md.slice(md.indexOf('| Action'));
};

describe('plans in the terms of the file', () => {
  it('a swap of types: each change shows its type, says it is a swap, and what else changes', () => {
    const p = planAfter(
      desiredState({
        ip_restrictions: [ipr('office', { type: 'dashboard' }), ipr('vpn', { type: 'api' })],
      }),
      desiredState({
        ip_restrictions: [
          ipr('office', { type: 'api' }),
          ipr('vpn', { type: 'dashboard', enforced: false, ip_policy_ids: [IPP_2] }),
        ],
      }),
    );
    expect(text(p)).toMatchInlineSnapshot(`
      "accord will make these changes (owner platform, http://127.0.0.1:1):

      Who can reach what:
        dashboard: 198.51.100.0/29 only -> everyone
        3 scopes unchanged

        # ip_restrictions.office will be updated in place
        # /w/accord.yaml:1
        #   renamed from vpn
        #   types swapped with vpn
        ~ ip_restrictions.office (ipx_0000000000000000000000000m2)  # renamed from vpn
              type: api
            ~ marker = "platform/vpn" -> "platform/office"

        # ip_restrictions.vpn will be updated in place
        # /w/accord.yaml:1
        #   renamed from office
        #   enforced changed
        #   ip_policies changed
        #   types swapped with office
        ~ ip_restrictions.vpn (ipx_0000000000000000000000000m1)  # renamed from office
              type: dashboard
            ~ enforced = true -> false
            ~ ip_policies = ["ipp_000000000000000000000000001"] -> ["ipp_000000000000000000000000002"]
            ~ marker = "platform/office" -> "platform/vpn"

      Warnings:
        ! dashboard: everyone would be let through (today: only 198.51.100.0/29): after this plan ip_restrictions.vpn is warn-only; set enforced: true if it is to keep restricting

      Plan: 0 to create, 2 to patch, 0 to put, 0 to replace, 0 to delete, 0 to adopt. 0 unchanged, 3 unmanaged left alone.
      "
    `);
    expect(table(p)).toMatchInlineSnapshot(`
      "| Action | Address | ID | Context | Reasons |
      |---|---|---|---|---|
      | \`~\` patch | \`ip_restrictions.office\` | \`ipx_0000000000000000000000000m2\` | type: api | renamed from vpn; types swapped with vpn |
      | \`~\` patch | \`ip_restrictions.vpn\` | \`ipx_0000000000000000000000000m1\` | type: dashboard | renamed from office; enforced changed; ip_policies changed; types swapped with office |

      <details><summary>Details</summary>

      \`\`\`diff
      # ip_restrictions.office will be updated in place
      # /w/accord.yaml:1
      #   renamed from vpn
      #   types swapped with vpn
      ~ ip_restrictions.office (ipx_0000000000000000000000000m2)
             type: api
      ~     marker = "platform/vpn" -> "platform/office"

      # ip_restrictions.vpn will be updated in place
      # /w/accord.yaml:1
      #   renamed from office
      #   enforced changed
      #   ip_policies changed
      #   types swapped with office
      ~ ip_restrictions.vpn (ipx_0000000000000000000000000m1)
             type: dashboard
      ~     enforced = true -> false
      ~     ip_policies = ["ipp_000000000000000000000000001"] -> ["ipp_000000000000000000000000002"]
      ~     marker = "platform/office" -> "platform/vpn"

      \`\`\`

      </details>
      "
    `);
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
    expect(text(p)).toMatchInlineSnapshot(`
      "accord will make these changes (owner platform, http://127.0.0.1:1):

        # ssh_host_certificates.web will be created
        # /w/accord.yaml:1
        #   not in the account yet
        + ssh_host_certificates.web
            + ssh_certificate_authority_id = "sshca_000000000000000000000000001"
            + public_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA host@x"
            + principals = ["a.example.com"]
            + valid_after = "2027-01-01T00:00:00Z"
            + valid_for = "90d"
            + marker = "platform/web"

      Plan: 1 to create, 0 to patch, 0 to put, 0 to replace, 0 to delete, 0 to adopt. 0 unchanged, 3 unmanaged left alone.
      "
    `);
    expect(table(p)).toMatchInlineSnapshot(`
      "| Action | Address | ID | Reasons |
      |---|---|---|---|
      | \`+\` create | \`ssh_host_certificates.web\` |  | not in the account yet |

      <details><summary>Details</summary>

      \`\`\`diff
      # ssh_host_certificates.web will be created
      # /w/accord.yaml:1
      #   not in the account yet
      + ssh_host_certificates.web
      +     ssh_certificate_authority_id = "sshca_000000000000000000000000001"
      +     public_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA host@x"
      +     principals = ["a.example.com"]
      +     valid_after = "2027-01-01T00:00:00Z"
      +     valid_for = "90d"
      +     marker = "platform/web"

      \`\`\`

      </details>
      "
    `);
  });

  it('lifecycle.prevent_destroy, not protect', () => {
    const p = planAfter(
      desiredState({ ip_restrictions: [ipr('office')] }),
      desiredState({ ip_restrictions: [ipr('office', { protect: true })] }),
    );
    expect(text(p)).toMatchInlineSnapshot(`
      "accord will make these changes (owner platform, http://127.0.0.1:1):

        # ip_restrictions.office will be updated in place
        # /w/accord.yaml:1
        #   lifecycle.prevent_destroy changed
        ~ ip_restrictions.office (ipx_0000000000000000000000000m1)
              type: dashboard
            ~ lifecycle.prevent_destroy = false -> true

      Plan: 0 to create, 1 to patch, 0 to put, 0 to replace, 0 to delete, 0 to adopt. 0 unchanged, 3 unmanaged left alone.
      "
    `);
    expect(table(p)).toMatchInlineSnapshot(`
      "| Action | Address | ID | Context | Reasons |
      |---|---|---|---|---|
      | \`~\` patch | \`ip_restrictions.office\` | \`ipx_0000000000000000000000000m1\` | type: dashboard | lifecycle.prevent_destroy changed |

      <details><summary>Details</summary>

      \`\`\`diff
      # ip_restrictions.office will be updated in place
      # /w/accord.yaml:1
      #   lifecycle.prevent_destroy changed
      ~ ip_restrictions.office (ipx_0000000000000000000000000m1)
             type: dashboard
      ~     lifecycle.prevent_destroy = false -> true

      \`\`\`

      </details>
      "
    `);
  });

  it('valid_for changed on an existing certificate: no change, and a note on how to renew', () => {
    const p = plan(
      desiredState({ ssh_host_certificates: [cert('web', { valid_for_seconds: 30 * 86_400 })] }),
      liveState({
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
    expect(text(p)).toMatchInlineSnapshot(`
      "No changes. The account matches the file.

      Warnings:
        ! ssh_host_certificates.web: valid_for 30d applies only when a certificate is created; shcrt_1 was issued for about 90d (valid until 2027-01-30T00:00:00Z) and keeps it. It gets the new lifetime when it is replaced: add renew_before (e.g. renew_before: 10d) to replace it once its expiry is nearer than that, or delete it in the account to have the next apply create it again.

      Plan: 0 to create, 0 to patch, 0 to put, 0 to replace, 0 to delete, 0 to adopt. 1 unchanged, 3 unmanaged left alone.
      "
    `);
    expect(renderMarkdown(p)).toMatchInlineSnapshot(`
      "### accord plan (owner \`platform\`)

      **Plan: 0 to create, 0 to patch, 0 to put, 0 to replace, 0 to delete, 0 to adopt. 1 unchanged, 3 unmanaged left alone.**

      > [!WARNING]
      > - ssh_host_certificates.web: valid_for 30d applies only when a certificate is created; shcrt_1 was issued for about 90d (valid until 2027-01-30T00:00:00Z) and keeps it. It gets the new lifetime when it is replaced: add renew_before (e.g. renew_before: 10d) to replace it once its expiry is nearer than that, or delete it in the account to have the next apply create it again.

      No changes. The account matches the file.
      "
    `);
  });
});
