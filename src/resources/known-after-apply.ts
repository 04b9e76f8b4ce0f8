// The ID of an object a plan makes, before the plan is applied (DESIGN §1, §4): a value of its own,
// like Terraform's unknown values, that carries the address of the change whose answer gives the ID.
// It stands where the ID will stand (a restriction's `ip_policies`, a rule's `ip_policy`, a traffic
// policy's `restrict-ips`), compares as itself, and is shown, in text and in the plan's JSON, as
// `(known after apply: ADDRESS)`. Nothing reads that text back: code asks `instanceof`.

/** The ID the change at `address` makes, known once that change has been applied. */
export class KnownAfterApply {
  static readonly #interned = new Map<string, KnownAfterApply>();

  /** The one value for `address`: two references to one object made by a plan are the same value. */
  static of(address: string): KnownAfterApply {
    let value = KnownAfterApply.#interned.get(address);
    if (value === undefined) {
      value = new KnownAfterApply(address);
      KnownAfterApply.#interned.set(address, value);
    }
    return value;
  }

  private constructor(
    /** The address of the change whose answer gives the ID: `ip_policies.office`. */
    readonly address: string,
  ) {
    Object.freeze(this);
  }

  /** How the plan's JSON shows it. */
  toJSON(): string {
    return `(known after apply: ${this.address})`;
  }

  toString(): string {
    return this.toJSON();
  }
}

/** An ID as a plan holds it: a live one, or one known after apply. */
export type PlannedId = string | KnownAfterApply;

/** The address whose answer gives `value`, when it is known after apply. */
export function awaitedAddress(value: unknown): string | undefined {
  return value instanceof KnownAfterApply ? value.address : undefined;
}

/** Whether a value of the plan's values is an ID: a string or a known-after-apply value. */
export function isPlannedId(value: unknown): value is PlannedId {
  return typeof value === 'string' || value instanceof KnownAfterApply;
}

/** A value of the plan's values as an ID: a string or a known-after-apply value; anything else ''. */
export function plannedId(value: unknown): PlannedId {
  return isPlannedId(value) ? value : '';
}

/** Each item of a list as an ID (as `plannedId`), in order; anything but a list: none. */
export function plannedIds(values: unknown): PlannedId[] {
  return Array.isArray(values) ? values.map(plannedId) : [];
}

/** How messages name an ID: the live ID, or the address of the change that makes it (`ip_policies.office`). */
export function idLabel(id: PlannedId): string {
  return typeof id === 'string' ? id : id.address;
}

/** How IDs are ordered in a set: by the text the plan shows, so the JSON of a set is one order. */
export function idText(id: PlannedId): string {
  return typeof id === 'string' ? id : id.toJSON();
}

/** Orders IDs as a set of them is ordered (by `idText`). */
export function compareIds(a: PlannedId, b: PlannedId): number {
  const [x, y] = [idText(a), idText(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * A list of IDs as a set: sorted by `idText`, each once. Items that are no ID (a file that failed its
 * schema may give them) are shown as their text; anything but a list is the empty set.
 */
export function plannedIdSet(values: unknown): PlannedId[] {
  if (!Array.isArray(values)) return [];
  const ids = values.map((v) => (v instanceof KnownAfterApply ? v : typeof v === 'string' ? v : String(v)));
  // Equal IDs are the same value (known-after-apply values are one per address): neighbours once sorted.
  return ids.sort(compareIds).filter((id, i) => i === 0 || id !== ids[i - 1]);
}
