// A plan's warnings in English: the only place its warning codes (src/plan/types.ts `Warning`) become
// sentences. The plan's `warnings` are these sentences of its `warning_codes`, in order.

import type { Warning } from '../plan/types.js';
import { isEdgeScope, isEndpointScope } from '../resources/scope.js';
import { scopeLabel } from '../traffic/reach.js';
import { describeBreach } from './guards.js';
import { cidrsText } from './reach-text.js';
import { destroyedText, refusalText } from './refusals.js';

const UNLISTED_ENDPOINTS =
  "the service has no list of endpoints (GET /endpoints), so this plan's reach shows no endpoint and no guard or lockout check covers one; check endpoints' traffic policies that name the policies it changes";

/** One warning as a person reads it. */
export function warningText(w: Warning): string {
  switch (w.code) {
    case 'id_gone':
      return `${w.where}: id ${w.id} no longer exists; matched by its marker instead; remove id:`;
    case 'ambiguous_rename': {
      const others = w.objects.map((o) => `${o.id} (${o.address})`).join(', ');
      const why = w.rivals
        ? `so does ${w.rivals.join(', ')}`
        : `so do ${w.objects.length} objects whose keys left the file`;
      return (
        `${w.address}: the immutable values equal those of ${others}, but ${why}; ` +
        `planned as a create and a delete; give the entry id: ${w.objects[0]?.id} to make it a rename`
      );
    }
    case 'ca_expiry':
      return w.days === undefined
        ? `${w.address}: the certificate (CN=${w.common_name}) expired on ${w.not_after}`
        : `${w.address}: the certificate (CN=${w.common_name}) expires in ${w.days} days (${w.not_after})`;
    case 'valid_until_within_renewal':
      return `${w.address}: valid_until ${w.valid_until} is within renew_before; set a later valid_until or use valid_for`;
    case 'allows_everything':
      return `${w.address}: allow ${w.cidr} allows every address`;
    case 'idle_rule': {
      const names = w.scopes.map(scopeLabel).join(', ');
      return w.action === 'deny'
        ? `${w.address}: deny ${w.cidr} does nothing: no allow rule of the policies of ${names} matches any of its addresses`
        : `${w.address}: allow ${w.cidr} does nothing: deny rules of the policies of ${names} block all of its addresses`;
    }
    case 'no_reach':
      return `${scopeLabel(w.scope)}: no address is let through, today or after this plan (policies: ${w.policies.length > 0 ? w.policies.join(', ') : 'none'})`;
    case 'unseen_tcp_edges':
    case 'unlisted_endpoints':
    case 'unseen_endpoints':
      return unseenText(w);
    case 'threshold_forced':
      return `${destroyedText(w)}; allowed by --force`;
    case 'valid_for_kept':
      return (
        `${w.address}: valid_for ${writtenDuration(w.valid_for)} applies only when a certificate is created; ` +
        `${w.id} was issued for about ${writtenDuration(w.lifetime)} (valid until ${w.valid_until}) and keeps it. ` +
        `It gets the new lifetime when it is replaced: add renew_before (e.g. renew_before: ${writtenDuration(Math.max(60, w.valid_for / 3))}) to replace it once its ` +
        'expiry is nearer than that, or delete it in the account to have the next apply create it again.'
      );
    case 'refusal_forced':
      return `${refusalText(w.refusal)}; allowed by --force`;
    case 'guard_mended':
      return `${describeBreach(w.breach, 'now')} in the account; this plan mends it`;
    case 'opens_to_everyone':
      return openedText(w);
  }
}

/** What the plan could not see: TCP edges or endpoints the service does not list, or were not listed. */
function unseenText(
  w: Extract<Warning, { code: 'unseen_tcp_edges' | 'unlisted_endpoints' | 'unseen_endpoints' }>,
): string {
  if (w.code === 'unlisted_endpoints') return UNLISTED_ENDPOINTS;
  if (w.code === 'unseen_tcp_edges') {
    const why =
      w.edges === 'unavailable' ? 'the service has no list of TCP edges' : 'the TCP edges were not listed';
    return `${w.address}: ${why}, so TCP edge IP restriction modules the files do not name may still name ${w.id}; check them before applying`;
  }
  const why =
    w.endpoints === 'unavailable' ? 'the service has no list of endpoints' : 'the endpoints were not listed';
  return `${w.address}: ${why}, so endpoint traffic policies may still name ${w.id}; check them before applying`;
}

/** `dashboard: everyone would be let through (today: only 10.0.0.0/8): this plan deletes ...`. */
function openedText(w: Extract<Warning, { code: 'opens_to_everyone' }>): string {
  if (isEndpointScope(w.scope)) return endpointOpenedText(w);
  const edge = isEdgeScope(w.scope);
  const holder = w.source ?? (edge ? 'its module' : 'its restriction');
  const today = w.today.cidrs.length === 0 ? 'nobody' : `only ${cidrsText(w.today)}`;
  const head = `${scopeLabel(w.scope)}: everyone would be let through (today: ${today})`;
  switch (w.by) {
    case 'deleted':
      return `${head}: this plan deletes ${holder}; if it is to stay, plan the file that holds its entry too`;
    case 'not_enforced':
      return `${head}: after this plan ${holder} is ${edge ? 'disabled' : 'warn-only'}; set ${edge ? 'enabled' : 'enforced'}: true if it is to keep restricting`;
    default:
      return `${head}: after this plan the policies ${holder} names let every address in; a guard's only_let_in refuses such a plan`;
  }
}

/** `endpoint https://admin.example.com: everyone would be let through (today: ...): after this plan ...`. */
function endpointOpenedText(w: Extract<Warning, { code: 'opens_to_everyone' }>): string {
  const policy = w.source !== undefined ? `the traffic policy of ${w.source}` : 'its traffic policy';
  const today = w.today.cidrs.length === 0 ? 'nobody' : `only ${cidrsText(w.today)}`;
  const head = `${scopeLabel(w.scope)}: everyone would be let through (today: ${today})`;
  if (w.by === 'traffic_policy') {
    return `${head}: after this plan ${policy} has no enforced restrict-ips that runs; keep one (enforce: true, before any action that always ends the processing) if it is to keep restricting`;
  }
  return `${head}: after this plan the restrict-ips actions of ${policy} let every address in (through the policies they name or their own CIDRs); a guard's only_let_in refuses such a plan`;
}

/** Seconds as the file writes a duration, rounded to the largest unit that fits (`90d`, `12h`, `5m`). */
function writtenDuration(seconds: number): string {
  if (seconds >= 86_400) return `${Math.round(seconds / 86_400)}d`;
  if (seconds >= 3_600) return `${Math.round(seconds / 3_600)}h`;
  return `${Math.max(0, Math.round(seconds / 60))}m`;
}
