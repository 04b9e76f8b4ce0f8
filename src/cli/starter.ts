// What `accord init` writes: a starter accord.yaml that is valid as it is (it manages nothing yet), with
// one commented example per section, each valid once uncommented and its placeholders replaced by the
// account's IDs; and the CI recipes of examples/ci, which ship in the package.
import { readFileSync } from 'node:fs';
import { SCHEMA_COMMENT } from '../config/schema-file.js';
import { packageFile } from '../package-files.js';

export const STARTER_FILE = 'accord.yaml';

export const STARTER = `#${SCHEMA_COMMENT}
# The desired state of one account of the Account Management API, kept in git.
#   accord validate   checks this file (no request, no key)
#   accord plan       shows what would change in the account to match it (changes nothing)
#   accord apply      makes it so
# Your editor completes and explains every field through accord.schema.json (the comment above); to
# start from what the account holds today instead, run accord export.
version: 1
owner: default # whose resources these are: accord changes only resources it made under this owner

# Uncomment what accord should manage and put in your own IDs; whatever the file leaves out, accord
# leaves alone.
#
# ip_policies: # IP policies and their rules: the addresses themselves, reviewed here
#   office: # a name you choose; restrictions and edges name the policy by it
#     description: the office network
#     rules: # an address gets in when an allow rule matches it and no deny rule does
#       - allow: 203.0.113.0/24 # a CIDR, written with the lowest address of its range
#       - deny: 203.0.113.66/32
#         description: the guest Wi-Fi
#
# ip_restrictions: # at most one per traffic type
#   office-dashboard: # a name you choose; accord records it on the resource
#     type: dashboard # dashboard | api | agent | endpoints
#     enforced: true # false only reports traffic from other addresses
#     ip_policies: [office] # IP policies by key in this file, or by ID (ipp_...)
#
# certificate_authorities:
#   internal-root:
#     ca_pem_file: certs/internal-root.pem # the CA certificate, relative to this file; never a private key
#
# ssh_host_certificates:
#   bastion:
#     ssh_certificate_authority_id: sshca_YourHostCaId
#     public_key_file: keys/ssh_host_ed25519_key.pub # the host's public key, relative to this file
#     principals: [bastion.example.com] # [] = valid for every host
#     valid_for: 90d
#     renew_before: 30d # replace it when it expires within 30 days
#
# cloud_endpoints: # endpoints and their traffic policies; an empty section deletes this owner's
#   admin:
#     url: https://admin.example.com # its identity; changing it updates the endpoint
#     traffic_policy: # as YAML here, or traffic_policy_file: a file beside this one
#       on_http_request:
#         - actions:
#             - type: restrict-ips
#               config: { ip_policies: [office] } # by key in this file, or by ID (ipp_...)
#
# tcp_edges: # modules of existing TCP edges, by edge ID
#   edgtcp_YourEdgeId:
#     ip_restriction: { enabled: true, ip_policies: [ipp_YourPolicyId] } # or "absent"
#
# https_edges: # route modules of existing HTTPS edges, by edge and route ID
#   edghts_YourEdgeId:
#     routes:
#       edghtsrt_YourRouteId:
#         websocket_tcp_converter: { enabled: true } # or "absent"
#
# guards: # what must hold after every apply, whoever edits the rules; keep them in a file of their own
#   dashboard: # a traffic type, tcp_edges.<edge ID>, or all
#     enforced: true # an enforced restriction must exist
#     always_let_in: [203.0.113.128/25] # never shut out, whatever the rules say
#     only_let_in: [203.0.113.0/24] # nothing outside these is ever let in
`;

export const CI_SYSTEMS = ['github', 'gitlab'] as const;
export type CiSystem = (typeof CI_SYSTEMS)[number];

/** Where each system reads its CI file, relative to the repository's root, and the recipe it gets. */
export const CI_FILES: Record<CiSystem, { path: string; recipe: string }> = {
  github: { path: '.github/workflows/accord.yml', recipe: 'github-actions.yml' },
  gitlab: { path: '.gitlab-ci.yml', recipe: 'gitlab-ci.yml' },
};

/** The recipe from examples/ci, as the package ships it. */
export function ciRecipe(system: CiSystem): string {
  return readFileSync(packageFile(`examples/ci/${CI_FILES[system].recipe}`), 'utf8');
}
