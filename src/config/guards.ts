// Reading `guards:` (DESIGN §1 "Guards"): per scope, `enforced`, `always_let_in` and `only_let_in`,
// the latter two also from files of CIDRs read like `allow_file`. A field and its `_file` form count
// together. What they mean for traffic is checked on reach (src/traffic/guards.ts).
import { cidrLineProblem, cidrLines, formatCidr, isCidrProblem, parseCidr } from '../net/cidr.js';
import { MAX_CIDR_FILE_BYTES } from '../resources/ip_policy.js';
import { mappingEntries } from '../resources/reading.js';
import { edgeOfScope, endpointUrl, isEndpointScope } from '../resources/scope.js';
import type { EntryReader } from '../resources/types.js';
import { closest } from '../suggest.js';
import type { AccordFile } from './generated/accord-file.js';
import type { DesiredGuard } from './guard-model.js';
import type { DesiredState } from './model.js';
import type { Problem } from './problems.js';
import type { PathSegment } from './source.js';

type WrittenGuard = NonNullable<AccordFile['guards']>[string];
type ListField = 'always_let_in' | 'only_let_in';

/** The guards of one file, in file order; problems reported at their place. */
export function readGuards(file: AccordFile, c: EntryReader): DesiredGuard[] {
  return mappingEntries(file.guards).map(([scope, written]): DesiredGuard => {
    const at: PathSegment[] = ['guards', scope];
    const only = cidrsOf(c, at, written, 'only_let_in');
    return {
      // An endpoint's URL as every other part compares it: one endpoint, however it is spelled.
      scope: isEndpointScope(scope) ? endpointUrl(scope) : scope,
      enforced: written.enforced === true,
      always_let_in: cidrsOf(c, at, written, 'always_let_in') ?? [],
      ...(only !== undefined ? { only_let_in: only } : {}),
      loc: c.loc(at),
    };
  });
}

/**
 * Over every file: a scope guarded in one file only (there is no merge of two guards), and a guard on
 * a TCP edge names an edge the files name: accord reads only the modules the files name, so it could
 * not check the guard of another (the edge may be named in another file than its guard). An endpoint
 * guarded both by its address (`cloud_endpoints.KEY`, resolved to its entry's url) and by its URL
 * is guarded twice: said at the later guard.
 */
export function checkGuardsAcrossFiles(
  read: readonly { guards: readonly DesiredGuard[]; reader: { problems: Problem[] } }[],
  desired: Pick<DesiredState, 'tcp_edge_ip_restrictions' | 'cloud_endpoints'>,
): void {
  const edges = new Set(desired.tcp_edge_ip_restrictions.map((m) => m.edge_id));
  const endpointUrls = new Map(desired.cloud_endpoints.map((e) => [`${ENDPOINT_ADDRESS}${e.key}`, e.url]));
  const byScope = new Map<string, DesiredGuard[]>();
  const byEndpoint = new Map<string, DesiredGuard[]>();
  for (const { guards } of read) {
    for (const g of guards) {
      byScope.set(g.scope, [...(byScope.get(g.scope) ?? []), g]);
      const url = endpointUrls.get(g.scope) ?? g.scope;
      byEndpoint.set(url, [...(byEndpoint.get(url) ?? []), g]);
    }
  }
  for (const { guards, reader } of read) {
    for (const g of guards) {
      // At the guard's key, as an entry defined twice is.
      const report = (message: string) =>
        reader.problems.push({ ...g.loc, path: `guards.${g.scope}`, message });
      const others = (byScope.get(g.scope) ?? []).filter((o) => o !== g);
      if (others.length > 0) {
        const places = others.map((o) => `${o.loc.file}:${o.loc.line}:${o.loc.col}`).join(', ');
        report(
          `is also guarded at ${places}; a scope's guard is defined in one file only (files never merge guards): keep one of them`,
        );
      }
      const url = endpointUrls.get(g.scope) ?? g.scope;
      const group = byEndpoint.get(url) ?? [];
      const earlier = group.slice(0, group.indexOf(g)).find((o) => o.scope !== g.scope);
      if (earlier !== undefined) {
        const { file, line, col } = earlier.loc;
        report(
          `guards the endpoint ${url}, which is also guarded at ${file}:${line}:${col} as ${earlier.scope}; an endpoint's guard is defined once, by its URL or by its address (guards never merge): keep one of them`,
        );
      }
      if (g.scope.startsWith(ENDPOINT_ADDRESS) && !endpointUrls.has(g.scope))
        report(noEntry(g.scope, endpointUrls));
      const edge = edgeOfScope(g.scope);
      if (edge !== undefined && !edges.has(edge)) {
        report(
          `guards the TCP edge ${edge}, which no file names under tcp_edges; accord reads only the modules the files name, so it could not check this guard. Add tcp_edges.${edge}.ip_restriction (its policies, or "absent"), or guard another scope`,
        );
      }
    }
  }
}

const ENDPOINT_ADDRESS = 'cloud_endpoints.';

/**
 * A guard by an entry's address that no file has: it would judge nothing (a renamed entry leaves its
 * guard behind), so it is an error, with the closest address the files have.
 */
function noEntry(scope: string, addresses: ReadonlyMap<string, string>): string {
  const key = scope.slice(ENDPOINT_ADDRESS.length);
  const keys = [...addresses.keys()].map((a) => a.slice(ENDPOINT_ADDRESS.length));
  // A renamed key is often the old one with a part added or taken away (shop, shop-eu).
  const found = closest(key, keys) ?? keys.find((k) => k.includes(key) || key.includes(k));
  const near = found !== undefined ? `${ENDPOINT_ADDRESS}${found}` : undefined;
  const hint = near !== undefined ? `did you mean ${near} (${addresses.get(near)})? ` : '';
  return `names no entry of the files: no file has ${scope}, so this guard would judge nothing; ${hint}guard an entry under cloud_endpoints by its key, or an endpoint by its URL`;
}

/** The canonical CIDRs of `field` and `field_file` together; undefined when neither is given. */
function cidrsOf(
  c: EntryReader,
  at: PathSegment[],
  written: WrittenGuard,
  field: ListField,
): string[] | undefined {
  const inline = written[field];
  const fileName = written[`${field}_file`];
  if (inline === undefined && fileName === undefined) return undefined;
  const cidrs: string[] = [];
  (Array.isArray(inline) ? inline : []).forEach((text, i) => {
    if (typeof text !== 'string') return;
    const parsed = parseCidr(text.trim());
    if (isCidrProblem(parsed)) c.report([...at, field, i], parsed.problem);
    else cidrs.push(formatCidr(parsed));
  });
  if (typeof fileName === 'string') cidrs.push(...fileCidrs(c, at, `${field}_file`, fileName));
  return [...new Set(cidrs)];
}

function fileCidrs(c: EntryReader, at: PathSegment[], fileField: string, name: string): string[] {
  const content = c.content([...at, fileField], undefined, fileField, name, MAX_CIDR_FILE_BYTES);
  if (!content) return [];
  const cidrs: string[] = [];
  for (const { line, text } of cidrLines(content.text)) {
    const parsed = parseCidr(text);
    if (!isCidrProblem(parsed)) {
      cidrs.push(formatCidr(parsed));
      continue;
    }
    c.report([...at, fileField], cidrLineProblem(content.label, line, parsed));
  }
  return cidrs;
}
