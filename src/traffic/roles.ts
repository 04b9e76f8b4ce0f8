// What a change's kind means to traffic, asked of its descriptor (src/resources/types.ts `TrafficRole`):
// traffic code learns a kind's part (a policy, a rule of one, a restriction naming some) from these,
// never from its name.

import type { PlanChange } from '../plan/types.js';
import {
  descriptorFor,
  type ManagedDescriptor,
  managedDescriptors,
  type Restriction,
  type TrafficRole,
  type TrafficRule,
  type Values,
} from '../resources/index.js';

export function roleOf(c: Pick<PlanChange, 'kind'>): TrafficRole | undefined {
  return descriptorFor(c.kind).traffic;
}

/** Whether the change's kind is what rules belong to and restrictions name (an IP policy). */
export function isPolicy(c: Pick<PlanChange, 'kind'>): boolean {
  return roleOf(c)?.role === 'policy';
}

/** The rule these values of the change's kind are; undefined when its kind is no rule. */
export function ruleOf(
  c: Pick<PlanChange, 'kind'>,
  values: Values | null | undefined,
): TrafficRule | undefined {
  const role = roleOf(c);
  return role?.role === 'rule' && values ? role.rule(values) : undefined;
}

/** What these values of the change's kind restrict; undefined when its kind restricts nothing. */
export function restrictionOf(
  c: Pick<PlanChange, 'kind' | 'key'>,
  values: Values | null | undefined,
): Restriction | undefined {
  const role = roleOf(c);
  return role?.role === 'restriction' && values ? role.restricts(values, c.key) : undefined;
}

/** The restriction role of a kind; undefined for a kind that restricts nothing. */
export function restrictionRole(
  traffic: TrafficRole | undefined,
): Extract<TrafficRole, { role: 'restriction' }> | undefined {
  return traffic?.role === 'restriction' ? traffic : undefined;
}

/** The managed kinds whose objects play `role`, in registry order. */
export function managedWithRole(role: TrafficRole['role']): readonly ManagedDescriptor[] {
  return managedDescriptors.filter((d) => d.traffic?.role === role);
}

/** The kinds of `managedWithRole`, for a quick test of a change's kind. */
export function kindsWithRole(role: TrafficRole['role']): ReadonlySet<string> {
  return new Set<string>(managedWithRole(role).map((d) => d.kind));
}
