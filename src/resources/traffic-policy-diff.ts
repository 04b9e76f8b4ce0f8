// A traffic policy's change as a person reviews it (DESIGN §4): its rules and actions added, removed and
// changed, by phase and position or name, and inside a `restrict-ips` action each CIDR and IP policy on
// a line of its own; never the document as one string. Data only: the renderers indent and sign it.
import { PHASES, RESTRICT_IPS } from './traffic-policy.js';
import type { DiffLine } from './types.js';
import { canonicalJson, isRecord, jsonTextEqual } from './values.js';

type Name = (ref: unknown) => string;
type Rule = Readonly<Record<string, unknown>>;
type Sign = DiffLine['sign'];

/** The lines of a policy's change; `before` undefined: made, `after` undefined: deleted. */
export function policyDiff(before: unknown, after: unknown, name: Name): DiffLine[] {
  const was = isRecord(before) ? before : {};
  const now = isRecord(after) ? after : {};
  if (!isRecord(before) && before !== undefined) return [whole('-', before), whole('+', after)];
  if (!isRecord(after) && after !== undefined) return [whole('-', before), whole('+', after)];
  const phases = [...PHASES, ...Object.keys({ ...was, ...now }).filter((p) => !isPhase(p))];
  return phases.flatMap((phase) => phaseLines(phase, rulesOf(was[phase]), rulesOf(now[phase]), name));
}

function isPhase(p: string): boolean {
  return (PHASES as readonly string[]).includes(p);
}

function whole(sign: Sign, value: unknown): DiffLine {
  return { sign, depth: 1, text: value === undefined ? '(none)' : canonicalJson(value) };
}

function rulesOf(value: unknown): Rule[] {
  return Array.isArray(value) ? value.map((r) => (isRecord(r) ? r : { actions: [], value: r })) : [];
}

/**
 * Each rule after, matched to one before: the same rule unchanged, else a named rule by its name, an
 * unnamed one to the next unnamed rule before (their order kept). Rules left before were removed, and
 * are shown after those that stay.
 */
function phaseLines(phase: string, was: Rule[], now: Rule[], name: Name): DiffLine[] {
  const taken = new Set<number>();
  const named = (r: Rule) => (typeof r['name'] === 'string' ? r['name'] : undefined);
  const free = (test: (w: Rule, k: number) => boolean) =>
    was.findIndex((w, k) => !taken.has(k) && test(w, k));
  const same = now.map((rule) => {
    const j = free((w) => jsonTextEqual(w, rule));
    if (j >= 0) taken.add(j);
    return j;
  });
  const lines: DiffLine[] = [];
  now.forEach((rule, i) => {
    if (same[i]! >= 0) return;
    const n = named(rule);
    const j = free((w) => named(w) === n);
    if (j < 0) {
      lines.push(...ruleBlock('+', label(phase, i, rule), rule, name));
      return;
    }
    taken.add(j);
    const moved = i === j ? '' : ` (was ${phase}[${j}])`;
    lines.push({ sign: '~', depth: 1, text: `${label(phase, i, rule)}${moved}` });
    lines.push(...ruleChange(was[j]!, rule, name));
  });
  was.forEach((rule, j) => {
    if (!taken.has(j)) lines.push(...ruleBlock('-', label(phase, j, rule), rule, name));
  });
  return lines;
}

function label(phase: string, i: number, rule: Rule): string {
  return typeof rule['name'] === 'string'
    ? `${phase}[${i}] ${JSON.stringify(rule['name'])}`
    : `${phase}[${i}]`;
}

/** A rule added or removed whole. */
function ruleBlock(sign: Sign, heading: string, rule: Rule, name: Name): DiffLine[] {
  return [
    { sign, depth: 1, text: heading },
    ...expressionsOf(rule).map((e) => ({ sign, depth: 2, text: `if ${e}` })),
    ...actionsOf(rule).flatMap((a) => actionBlock(sign, a, name, 2)),
  ];
}

function expressionsOf(rule: Rule): string[] {
  return Array.isArray(rule['expressions']) ? rule['expressions'].map(String) : [];
}

function actionsOf(rule: Rule): Rule[] {
  return Array.isArray(rule['actions'])
    ? rule['actions'].map((a) => (isRecord(a) ? a : { type: String(a) }))
    : [];
}

function configOf(action: Rule): Readonly<Record<string, unknown>> {
  return isRecord(action['config']) ? action['config'] : {};
}

/** An action added or removed whole: a `restrict-ips` one item by item, another as its config. */
function actionBlock(sign: Sign, action: Rule, name: Name, depth: number): DiffLine[] {
  const type = String(action['type']);
  if (type !== RESTRICT_IPS) {
    const config = action['config'] === undefined ? '' : ` ${canonicalJson(action['config'])}`;
    return [{ sign, depth, text: `${type}${config}` }];
  }
  const config = configOf(action);
  const lines: DiffLine[] = [{ sign, depth, text: type }];
  if (config['enforce'] !== undefined)
    lines.push({ sign, depth: depth + 1, text: `enforce ${canonicalJson(config['enforce'])}` });
  for (const [field, item] of restrictItems(config, name))
    lines.push({ sign, depth: depth + 1, text: `${field} ${item}` });
  return lines;
}

/** A restrict-ips config's CIDRs and policies, each `[field, shown]`. */
function restrictItems(config: Readonly<Record<string, unknown>>, name: Name): [string, string][] {
  const items: [string, string][] = [];
  for (const field of ['allow', 'deny', 'ip_policies'] as const) {
    const list = config[field];
    if (!Array.isArray(list)) continue;
    for (const v of list) items.push([field, field === 'ip_policies' ? name(v) : String(v)]);
  }
  return items;
}

/** What changed in a rule matched before and after. */
function ruleChange(was: Rule, now: Rule, name: Name): DiffLine[] {
  const lines: DiffLine[] = [];
  if (was['name'] !== now['name']) {
    lines.push({ sign: '~', depth: 2, text: `name ${shown(was['name'])} -> ${shown(now['name'])}` });
  }
  const [before, after] = [expressionsOf(was), expressionsOf(now)];
  for (const e of before) if (!after.includes(e)) lines.push({ sign: '-', depth: 2, text: `if ${e}` });
  for (const e of after) if (!before.includes(e)) lines.push({ sign: '+', depth: 2, text: `if ${e}` });
  const [a, b] = [actionsOf(was), actionsOf(now)];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const [x, y] = [a[i], b[i]];
    if (x && y && jsonTextEqual(x, y)) continue;
    if (x && y && x['type'] === y['type']) lines.push(...actionChange(x, y, i, name));
    else {
      if (x) lines.push(...actionBlock('-', x, name, 2));
      if (y) lines.push(...actionBlock('+', y, name, 2));
    }
  }
  return lines;
}

function shown(v: unknown): string {
  return v === undefined ? '(none)' : canonicalJson(v);
}

/** An action of one type before and after: its config's items, or fields, that changed. */
function actionChange(was: Rule, now: Rule, i: number, name: Name): DiffLine[] {
  const type = String(now['type']);
  const lines: DiffLine[] = [{ sign: '~', depth: 2, text: `${type} (actions[${i}])` }];
  const [x, y] = [configOf(was), configOf(now)];
  if (type === RESTRICT_IPS) {
    if (x['enforce'] !== y['enforce']) {
      lines.push({ sign: '~', depth: 3, text: `enforce ${shown(x['enforce'])} -> ${shown(y['enforce'])}` });
    }
    const key = ([f, v]: [string, string]) => `${f} ${v}`;
    const [before, after] = [restrictItems(x, name).map(key), restrictItems(y, name).map(key)];
    for (const item of before) if (!after.includes(item)) lines.push({ sign: '-', depth: 3, text: item });
    for (const item of after) if (!before.includes(item)) lines.push({ sign: '+', depth: 3, text: item });
    return lines;
  }
  for (const k of Object.keys({ ...x, ...y })) {
    if (jsonTextEqual(x[k], y[k])) continue;
    const sign: Sign = x[k] === undefined ? '+' : y[k] === undefined ? '-' : '~';
    const text = sign === '~' ? `${shown(x[k])} -> ${shown(y[k])}` : shown(sign === '+' ? y[k] : x[k]);
    lines.push({ sign, depth: 3, text: `${k} ${text}` });
  }
  return lines;
}
