// Why a plan cannot be made, in English: the only place the planner's problem codes (src/plan/types.ts
// `PlanProblem`) become sentences. `PlanError`'s message is these sentences, one a line.
import type { EntryAt, GuardNaming, PlanProblem, PolicyHolder, SlotHeld } from '../plan/types.js';
import { managedDescriptors } from '../resources/index.js';
import { idLabel } from '../resources/known-after-apply.js';
import { endpointLabel } from '../traffic/endpoint-scopes.js';

/** The entry as problems name it: `ip_restrictions.office (accord.yaml:3:5)`. */
const at = (e: EntryAt) => `${e.address} (${e.file}:${e.line}:${e.col})`;

/** One problem as a person reads it: what, where, and what to do. */
export function problemText(p: PlanProblem): string {
  switch (p.code) {
    case 'id_unknown':
      return `${at(p.entry)}: id ${p.id} does not exist in the account; remove id: or fix it`;
    case 'id_not_managed':
      return (
        `${at(p.entry)}: id ${p.id} is ${p.type === 'agent' ? 'an' : 'a'} ${p.type} endpoint (${p.url}), which accord does not manage: ` +
        `only cloud endpoints are made and changed through the API, and ${p.type} endpoints are made by the ${p.type} that runs them. ` +
        (p.marked === undefined
          ? 'Remove id: to have this entry create a cloud endpoint of its own'
          : `This entry's own cloud endpoint is ${p.marked} (it carries the entry's marker): remove id: to go on managing it`) +
        ', or change the endpoint where it runs'
      );
    case 'id_claimed':
      return `${at(p.entry)}: id ${p.id} is already matched by another entry`;
    case 'id_other_owner':
      return `${at(p.entry)}: id ${p.id} belongs to owner "${p.owner}" (key ${p.key}); rerun with --allow-takeover to take it over`;
    case 'id_other_entry':
      return `${at(p.entry)}: id ${p.id} is already the entry ${p.other}`;
    case 'unknown_reference':
      return `${at(p.entry)}: ${p.field} names ${p.ref}, which the account does not have; name an entry of ${p.section} by key, or an ID the account has`;
    case 'slot_held':
      return slotHeldText(p);
    case 'slot_cycle':
      return slotCycleText(p);
    case 'denies_only':
      return (
        `${p.address}: the traffic policy of ${p.url} would deny at ${p.where} with nothing allowed once ` +
        "the plan's rules are in place (neither its allow nor the allow rules of its ip_policies let any " +
        'address in); the service refuses that (ERR_NGROK_393). Give the action an allow CIDR ' +
        '(0.0.0.0/0 and ::/0 let in everything its denies do not name), or an allow rule to a policy it names'
      );
    case 'endpoint_order':
      return endpointOrderText(p);
    case 'policy_still_named':
      return policyStillNamedText(p.address, p.id, p.holders, p.refused);
    case 'last_rule':
      return (
        `${p.address}: would delete ${p.cidr} when it may be the only rule left in ${idLabel(p.policy)}, which ` +
        `the dashboard IP restriction ${p.restriction} uses; the service refuses that (ERR_NGROK_1419). Give ` +
        'the policy its new rules in an apply of their own first, or take the policy out of the dashboard ' +
        'restriction first, then plan again'
      );
    case 'guarded_twice':
      return guardedTwiceText(p);
    case 'guard_names_nothing':
      return guardNamesNothingText(p);
    case 'policy_limit':
      return `${p.address}: its old and new IP policies together are ${p.union}, more than the ${p.limit} one restriction may name, and no steps of at most ${p.limit} keep letting through only what the account or the file allows; swap fewer policies in each plan (apply a part, then the rest)`;
    case 'traffic_cycle':
      return trafficCycleText(p);
  }
}

/** `cloud_endpoints.a (f:1:1): cloud_endpoints.a would take the URL ... of a cloud endpoint, which ...`. */
function slotCycleText(p: Extract<PlanProblem, { code: 'slot_cycle' }>): string {
  const { cycle } = p;
  const takes = cycle.map(
    (c, i) => `${c.address} the ${c.slot}, which ${cycle[(i + 1) % cycle.length]!.address} holds`,
  );
  const section = p.entry.address.slice(0, p.entry.address.indexOf('.'));
  const leave = managedDescriptors.find((d) => d.section === section)?.slotLeft ?? 'change one of them';
  return (
    `${at(p.entry)}: ${cycle.length} changes would take one another's places: ${takes.join(', and ')}; the ` +
    `service lets one object hold each at any moment, so none of them can go first; ${leave} of one of them ` +
    'to a free one in an apply of its own first (--target), then plan the rest'
  );
}

function slotHeldText(p: SlotHeld): string {
  const described = p.description === '' ? p.id : `${p.id} ("${p.description}")`;
  const h = p.holder;
  // A kind whose slot the entry can leave (an endpoint's URL) says so beside adopting.
  const section = p.entry.address.slice(0, p.entry.address.indexOf('.'));
  const leave = managedDescriptors.find((d) => d.section === section)?.slotLeft;
  const remove = leave ? `${leave}, or remove it from the account` : 'remove it from the account';
  const way =
    h.is === 'itself'
      ? 'which would have to be deleted before its replacement is created; change the entry back, or remove the object from the account first'
      : h.is === 'entry'
        ? `which ${h.address} keeps; give this entry id: ${p.id} instead, or remove it from the account`
        : h.is === 'marker_broken'
          ? `whose accord marker for this entry was broken outside accord (its metadata no longer reads as one); adopt it with id: ${p.id} on this entry, or ${remove}`
          : h.is === 'unmanaged'
            ? `which accord does not manage; adopt it with id: ${p.id} on this entry, or ${remove}`
            : `of owner "${h.owner}" (key ${h.key}); take it over with id: ${p.id} and --allow-takeover, or ${remove}`;
  return `${at(p.entry)}: the ${p.slot} is held by ${described}, ${way}`;
}

function holderName(h: PolicyHolder): string {
  switch (h.is) {
    case 'restriction':
      return `IP restriction ${h.id} (${h.type})`;
    case 'new_restriction':
      return `IP restriction ${h.address}`;
    case 'tcp_edge_module':
      return `TCP edge ${h.edge} (its IP restriction module)`;
    case 'endpoint':
      return `endpoint ${h.url} (${h.id}: its traffic policy)`;
    case 'new_endpoint':
      return `endpoint ${h.address} (its traffic policy)`;
  }
}

function policyStillNamedText(
  address: string,
  id: string,
  holders: readonly PolicyHolder[],
  refusedByService: boolean,
): string {
  // The service keeps a policy an IP restriction names; a TCP edge's module does not stop the delete.
  const refused = refusedByService
    ? ' (the service refuses to delete a policy an IP restriction names, ERR_NGROK_1420)'
    : '';
  return (
    `${address}: would delete ${id}, which ${holders.map(holderName).join(', ')} still ` +
    `name${holders.length === 1 ? 's' : ''} after this plan${refused}; the service would then let none of ` +
    'that traffic through. Keep the policy in the file, or take it out of what names it first ' +
    "(an IP restriction, a TCP edge's module or an endpoint's traffic policy, in the file or where it " +
    'is managed), then plan again'
  );
}

const GUARD_BY = {
  address: 'by its address',
  url: 'by its URL',
  url_before: 'by its URL before this plan',
  url_after: 'by its URL after this plan',
} as const;

/**
 * `guards.cloud_endpoints.admin (guards.yaml:6:3): judges the endpoint https://old.example.com
 * (cloud_endpoints.admin) by its address, as guards.https://old.example.com (guards.yaml:3:3) does by its
 * URL before this plan; ...`: at the later guard, naming the first and how each names the endpoint.
 */
function guardedTwiceText(p: Extract<PlanProblem, { code: 'guarded_twice' }>): string {
  const where = (g: GuardNaming) => `guards.${g.guard} (${g.at.file}:${g.at.line}:${g.at.col})`;
  const moved =
    p.before !== undefined && p.after !== undefined && p.before !== p.after
      ? `; this plan changes its url from ${p.before} to ${p.after}, and a guard by either URL judges it`
      : '';
  const follow =
    p.address !== undefined ? ` (one by its address, ${p.address}, follows it whatever its url)` : '';
  return (
    `${where(p.guard)}: judges the endpoint ${endpointLabel(p.scope, p.address)} ${GUARD_BY[p.guard.by]}, ` +
    `as ${where(p.first)} does ${GUARD_BY[p.first.by]}${moved}; an endpoint is guarded once (guards never ` +
    `merge): keep one of them${follow}`
  );
}

function endpointOrderText(p: Extract<PlanProblem, { code: 'endpoint_order' }>): string {
  const policies = p.policies.length > 0 ? ` (${p.policies.map(idLabel).join(', ')})` : '';
  const why = (w: { address: string; refused: string }) =>
    w.refused === 'service'
      ? `${w.address} (the service would refuse its traffic policy then: a restrict-ips that denies with nothing allowed, ERR_NGROK_393)`
      : w.refused === 'budget'
        ? `${w.address} (not tried: the search for an order gave up)`
        : `${w.address} (it would take ${w.refused} outside what it lets through before and after)`;
  const waiting =
    p.waiting && p.waiting.length > 0
      ? ` At the step with none, none of ${p.waiting.map(why).join(', ')} can go next.`
      : '';
  return (
    `${p.address}: no order of the changes that move what this endpoint lets through (the account-wide ` +
    `endpoints restriction, its traffic policy, the rules of the policies they name${policies}) keeps it ` +
    `between what it lets through today and after this plan at every step.${waiting} Apply the changes ` +
    'that shut addresses out in a plan of their own first, then the rest'
  );
}

function guardNamesNothingText(p: Extract<PlanProblem, { code: 'guard_names_nothing' }>): string {
  const near =
    p.near !== undefined
      ? ` Did you mean ${p.near.url}${p.near.address !== undefined ? ` (${p.near.address}, whose url it is now)` : ''}?`
      : '';
  return (
    `guards.${p.guard} (${p.at.file}:${p.at.line}:${p.at.col}): no endpoint of the account has the URL ${p.guard}, ` +
    `before or after this plan, so this guard would judge nothing.${near} Guard the endpoint by the URL it ` +
    'has, or by its address in the files (cloud_endpoints.KEY), which follows it whatever its url; or remove the guard'
  );
}

/** `a (f:3) -> b (f:9)`: each change of the cycle where it is written, and the one to apply first on its own. */
function trafficCycleText(p: Extract<PlanProblem, { code: 'traffic_cycle' }>): string {
  const shown = p.cycle.map((address, i) => {
    const at = p.at?.[i];
    return at ? `${address} (${at.file}:${at.line})` : address;
  });
  const first = p.first ?? p.cycle[0]!;
  return (
    `these changes cannot be ordered so that every scope (a traffic type, a TCP edge, an endpoint) keeps ` +
    `letting through only what the account or the files allow: ${shown.join(' -> ')}; each waits for the ` +
    `next. Break the cycle by applying ${first} in a plan of its own first (accord apply --target ${first}), ` +
    'then the rest'
  );
}
