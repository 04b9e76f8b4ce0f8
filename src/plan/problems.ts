// Why the files and the account cannot be planned together, as data: the problems of a PlanError,
// which src/render/problems.ts says in English, and the facts they carry.
import type { PlannedId } from '../resources/known-after-apply.js';

/** An entry of the files as a plan error names it: its address and where its key is written. */
export interface EntryAt {
  address: string;
  file: string;
  line: number;
  col: number;
}

/**
 * Why the files and the account cannot be planned together (`PlanError`); src/render/problems.ts
 * says each in English. No flag lifts one: the files or the account must change.
 */
export type PlanProblem =
  /** `id:` names an object the account does not have (and no object carries the entry's marker). */
  | { code: 'id_unknown'; entry: EntryAt; id: string }
  /**
   * `id:` names an object the account lists that accord does not manage by its kind: an endpoint of
   * `type` (`agent`, `edge`) at `url`, which its agent or edge makes, never the API. `marked`: the
   * object that carries the entry's marker, when one does (the entry's own, which `id:` does not name).
   */
  | { code: 'id_not_managed'; entry: EntryAt; id: string; type: string; url: string; marked?: string }
  /** `id:` names an object another entry's `id:` already matched. */
  | { code: 'id_claimed'; entry: EntryAt; id: string }
  /** `id:` names another owner's object (its marker's owner and key), without --allow-takeover. */
  | { code: 'id_other_owner'; entry: EntryAt; id: string; owner: string; key: string }
  /** `id:` names this owner's object that is `other`, another entry of the files (an address). */
  | { code: 'id_other_entry'; entry: EntryAt; id: string; other: string }
  /** `field` names `ref`, a live ID of `section`'s kind that the account does not have. */
  | { code: 'unknown_reference'; entry: EntryAt; field: string; ref: string; section: string }
  | SlotHeld
  /**
   * Changes that would each move into the slot the next one holds, the last into the first's (two
   * cloud endpoints exchanging URLs): the service lets one object hold a slot at a time, so none can
   * go first. `cycle[i]` moves into `cycle[i].slot`, which `cycle[i + 1]` holds today.
   */
  | { code: 'slot_cycle'; entry: EntryAt; cycle: { address: string; slot: string }[] }
  /**
   * An endpoint's traffic policy (the change at `address`) whose `restrict-ips` at `where` would deny
   * with nothing allowed once the plan's rules are in place: the service refuses it (ERR_NGROK_393).
   */
  | { code: 'denies_only'; address: string; url: string; where: string }
  /**
   * An endpoint's change (at `address`) that no order of it and of the rule changes of the `policies`
   * it names keeps between what it lets through before and after the plan.
   */
  | {
      code: 'endpoint_order';
      address: string;
      policies: PlannedId[];
      /**
       * The changes that could go next from the last state the search reached, each with what refuses it:
       * `service` (a traffic policy the service refuses then), the endpoint it would take out of its
       * bounds, or `budget` (not tried: the search gave up).
       */
      waiting?: { address: string; refused: string }[];
    }
  /** The delete of policy `id` (at `address`) while `holders` still name it after the plan. */
  | {
      code: 'policy_still_named';
      address: string;
      id: string;
      holders: PolicyHolder[];
      /** A holder keeps the policy: the service refuses its delete (ERR_NGROK_1420), not only lets none in. */
      refused: boolean;
    }
  /**
   * The delete of rule `cidr` (at `address`) when it may be the last of `policy`, which the dashboard
   * restriction `restriction` (its ID, or its address when this plan creates it) uses.
   */
  | { code: 'last_rule'; address: string; cidr: string; policy: PlannedId; restriction: string }
  /** The addresses of changes on a cycle of `depends_on`, in its order: no order keeps traffic safe. */
  | {
      code: 'traffic_cycle';
      cycle: string[];
      /** Where each change of `cycle` is written (null: its entry has left the files). */
      at?: ({ file: string; line: number } | null)[];
      /** The change of the cycle to apply in a plan of its own first. */
      first?: string;
    }
  /**
   * A restriction or module at `address` that swaps policies, whose old and new policies together are
   * `union`, more than the `limit` it may name, and no steps within the limit keep its reach.
   */
  | { code: 'policy_limit'; address: string; limit: number; union: number }
  /**
   * Two guards (neither `all`) that judge one endpoint, `first` and the later `guard` in the files'
   * order: a guard by a URL the plan moves the endpoint away from (or onto) covers it beside one by its
   * address or its other URL. `scope` is the endpoint's scope, with its address and its URL before and
   * after the plan (absent on a side where it does not exist).
   */
  | {
      code: 'guarded_twice';
      scope: string;
      address?: string;
      before?: string;
      after?: string;
      guard: GuardNaming;
      first: GuardNaming;
    }
  | GuardNamesNothing;

/**
 * A guard by an endpoint's URL (`guard`, at `at`) that no endpoint of the account has, before or after
 * the plan, and no entry of the files: it would judge nothing. `near` is a URL an endpoint has that is
 * close to it, with the entry that manages that endpoint when one does.
 */
export interface GuardNamesNothing {
  code: 'guard_names_nothing';
  guard: string;
  at: { file: string; line: number; col: number };
  near?: { url: string; address?: string };
}

/** A guard as `guarded_twice` names it: its scope as written, where, and what of the endpoint it names. */
export interface GuardNaming {
  guard: string;
  at: { file: string; line: number; col: number };
  by: 'address' | 'url' | 'url_before' | 'url_after';
}

/**
 * A create or replace of `entry` whose `slot` (`IP restriction of type api`) is held by the object
 * `id`; `holder` says whose it is, which says the way out.
 */
export interface SlotHeld {
  code: 'slot_held';
  entry: EntryAt;
  slot: string;
  id: string;
  /** The holder's description ('' when it has none). */
  description: string;
  holder: SlotHolder;
}

export type SlotHolder =
  /** The entry's own object, replaced within its slot: it would have to go before its successor. */
  | { is: 'itself' }
  /** The object of another entry of the files (its address). */
  | { is: 'entry'; address: string }
  /** An object whose marker for this entry no longer reads as one. */
  | { is: 'marker_broken' }
  | { is: 'unmanaged' }
  | { is: 'other_owner'; owner: string; key: string };

/** What names a policy after the plan: a live IP restriction, one the plan creates, or a TCP edge's module. */
export type PolicyHolder =
  | { is: 'restriction'; id: string; type: string }
  | { is: 'new_restriction'; address: string }
  | { is: 'tcp_edge_module'; edge: string }
  /** An endpoint whose traffic policy names it (a `restrict-ips` action), as listed; or one the plan makes. */
  | { is: 'endpoint'; id: string; url: string }
  | { is: 'new_endpoint'; address: string };
