// Cloud endpoints (shared/SPEC-endpoints.md "The endpoint object", "Operations"): a URL, its traffic
// policy (written as YAML in the file, or in a file of its own) and the usual description and marker.
// Only `type: cloud` endpoints are this kind's; agent and edge endpoints are listed, never touched.
import { ID_PREFIXES } from '../ids.js';
import { reportRepeated } from './reading.js';
import { endpointUrl } from './scope.js';
import {
  checkPolicyDocument,
  inlineReport,
  mapPolicyReferences,
  normalizePolicy,
  PHASES,
  type PolicyDocument,
  readLivePolicy,
} from './traffic-policy.js';
import { policyDiff } from './traffic-policy-diff.js';
import {
  type EntryReader,
  type ManagedEntry,
  managedKind,
  type PathSegment,
  type SharedFields,
} from './types.js';
import { isRecord, jsonTextEqual, type LiveObject, str, stringSet } from './values.js';

export interface DesiredCloudEndpoint extends ManagedEntry {
  kind: 'cloud_endpoint';
  url: string;
  /** A set; undefined: not compared (the service's default). */
  bindings?: string[];
  pooling_enabled: boolean;
  /** Normalized (src/resources/traffic-policy.ts); IP policies as the file names them (keys or IDs). */
  traffic_policy: PolicyDocument;
}

const SECTION = 'cloud_endpoints';

export const cloudEndpoint = managedKind<DesiredCloudEndpoint, 'cloud_endpoints'>({
  kind: 'cloud_endpoint',
  section: SECTION,
  nouns: { one: 'cloud endpoint', many: 'cloud endpoints' },
  idPrefix: ID_PREFIXES.endpoint,
  collectionPath: '/endpoints',
  listKey: 'endpoints',
  itemPath: (id) => `/endpoints/${encodeURIComponent(id)}`,
  listedOnlyWhenWritten: true,
  ownsListed: (object) => object['type'] === 'cloud',
  documentFiles: ['traffic_policy_file'],
  read: (e, shared, reader) => {
    const document = readDocument(e, shared, reader);
    if (typeof e.url !== 'string' || document === undefined) return undefined;
    return {
      kind: 'cloud_endpoint',
      ...shared,
      url: endpointUrl(e.url),
      ...(Array.isArray(e.bindings) ? { bindings: stringSet(e.bindings) } : {}),
      pooling_enabled: e.pooling_enabled === true,
      traffic_policy: normalizePolicy(document),
    };
  },
  checkEntries: (endpoints, reader) =>
    reportRepeated(
      endpoints,
      reader,
      SECTION,
      'url',
      'the service allows one cloud endpoint per URL, so give this one another url or remove it',
    ),
  fields: [
    {
      name: 'url',
      immutable: false,
      // The service keeps an endpoint's scheme: https to tcp is a new endpoint (made before the old goes).
      immutablePart: {
        name: 'scheme',
        of: (v) => (typeof v === 'string' ? /^[a-z]+(?=:\/\/)/.exec(v)?.[0] : v),
      },
      request: (v) => ['url', v],
    },
    { name: 'bindings', immutable: false, optional: true, request: (v) => ['bindings', v] },
    { name: 'pooling_enabled', immutable: false, request: (v) => ['pooling_enabled', v] },
    {
      name: 'traffic_policy',
      immutable: false,
      // A document is user data (any key, `valueOf` included): compared as canonical JSON text.
      equals: jsonTextEqual,
      request: (v) => ['traffic_policy', v],
      referencesWithin: { section: 'ip_policies', map: mapPolicyReferences },
    },
  ],
  normalizeLive: (live) => liveValues(live),
  normalizeDesired: (d) => ({
    url: d.url,
    ...(d.bindings ? { bindings: [...d.bindings] } : {}),
    pooling_enabled: d.pooling_enabled,
    traffic_policy: d.traffic_policy,
  }),
  createBody: (v) => ({
    type: 'cloud',
    url: v['url'],
    ...(v['bindings'] !== undefined ? { bindings: v['bindings'] } : {}),
    pooling_enabled: v['pooling_enabled'],
    traffic_policy: v['traffic_policy'],
  }),
  // The plan's body holds the document as data, so that the applier can fill in the IDs it makes; the
  // API takes it as text.
  wireBody: (body) =>
    isRecord(body['traffic_policy'])
      ? { ...body, traffic_policy: JSON.stringify(body['traffic_policy']) }
      : { ...body },
  // The service refuses a second cloud endpoint with one URL (409).
  slot: (values) => `URL ${str(values['url'])} of a cloud endpoint`,
  slotLeft: 'change the url',
  shownDiff: { traffic_policy: policyDiff },
  exportFields: (live) => {
    const v = liveValues(live);
    return {
      url: v['url'],
      ...(jsonTextEqual(v['bindings'], ['public']) ? {} : { bindings: v['bindings'] }),
      ...(v['pooling_enabled'] === true ? { pooling_enabled: true } : {}),
      traffic_policy: v['traffic_policy'] ?? {},
    };
  },
  exportName: (live) => hostOf(str(live['url'])),
  traffic: {
    role: 'endpoint',
    endpoint: (v) => ({
      url: str(v['url']),
      document: isRecord(v['traffic_policy']) ? v['traffic_policy'] : undefined,
    }),
  },
});

function liveValues(live: LiveObject): Record<string, unknown> {
  return {
    url: endpointUrl(str(live['url'])),
    bindings: stringSet(live['bindings']),
    pooling_enabled: live['pooling_enabled'] === true,
    traffic_policy: livePolicy(live),
  };
}

/** The entry's traffic policy, inline or from its file, checked; undefined when neither is there. */
function readDocument(
  e: { url?: unknown; traffic_policy?: unknown; traffic_policy_file?: string },
  shared: SharedFields,
  reader: EntryReader,
): PolicyDocument | undefined {
  const at = [SECTION, shared.key];
  if (isRecord(e.traffic_policy)) {
    const report = inlineReport(reader, [...at, 'traffic_policy']);
    checkPolicyDocument(e.traffic_policy, report);
    checkPhases(e.url, e.traffic_policy, report.report);
    return e.traffic_policy;
  }
  if (typeof e.traffic_policy_file !== 'string') return undefined;
  const file = reader.document([...at, 'traffic_policy_file'], e.traffic_policy_file, 'trafficPolicy');
  if (!file || !isRecord(file.data)) return undefined;
  checkPolicyDocument(file.data, {
    report: file.report,
    reference: (path, value) => reader.reference(path, 'ip_policies', value, file),
  });
  checkPhases(e.url, file.data, file.report);
  return file.data;
}

/** A TCP or TLS endpoint runs only on_tcp_connect: another phase the service refuses (ERR_NGROK_2230). */
function checkPhases(
  url: unknown,
  document: Readonly<Record<string, unknown>>,
  report: (path: readonly PathSegment[], message: string) => void,
): void {
  const scheme = typeof url === 'string' ? /^([a-z]+):\/\//.exec(url)?.[1] : undefined;
  if (scheme !== 'tcp' && scheme !== 'tls') return;
  for (const phase of Object.keys(document)) {
    if (phase === 'on_tcp_connect' || !(PHASES as readonly string[]).includes(phase)) continue;
    report(
      [phase],
      `does not run on a ${scheme} endpoint, which has only on_tcp_connect (the service refuses it, ERR_NGROK_2230); move its rules there or remove them`,
    );
  }
}

/** A live endpoint's document, normalized; its text itself when it does not read as one. */
function livePolicy(live: LiveObject): unknown {
  const text = str(live['traffic_policy']);
  const read = readLivePolicy(text);
  if ('unreadable' in read) return text;
  return read.document === undefined ? undefined : normalizePolicy(read.document);
}

/** What names an endpoint with no description in an export: its URL's host. */
function hostOf(url: string): string {
  try {
    return new URL(url).hostname || url;
  } catch {
    return url;
  }
}
