// Creating without duplicates (DESIGN §2, §6): the POST carries the ownership marker, so when its outcome
// is unknown (timeout, dropped connection, 5xx) the kind is listed and an object with this owner and key
// is taken as the one the POST made, instead of posting again.
import { isOutcomeUnknown } from '../api/errors.js';
import { AccordError } from '../errors.js';
import { count } from '../plural.js';
import type { ManagedDescriptor } from '../resources/index.js';
import { decodeMarker } from '../resources/marker.js';
import { isRecord, type LiveObject } from '../resources/values.js';
import type { ApplyClient } from './types.js';

export interface CreateOutcome {
  object: LiveObject;
  /** Found by its marker after an unknown outcome rather than read from the POST's answer. */
  recovered: boolean;
}

export class CreateFailedError extends AccordError {
  override name = 'CreateFailedError';
  static override readonly code = 'ACCORD_CREATE_FAILED';
}

/**
 * POSTs `body` to the kind's collection. `known` are IDs that already carried this marker when the
 * plan was made (the object a replace supersedes, duplicates): they are never taken for the new one.
 */
export async function createOnce(
  client: ApplyClient,
  descriptor: ManagedDescriptor,
  body: Record<string, unknown>,
  known: ReadonlySet<string>,
  attempts: number,
): Promise<CreateOutcome> {
  const marker = decodeMarker(body['metadata']);
  let last: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      const object = await client.post<unknown>(descriptor.collectionPath, body);
      if (!isRecord(object) || typeof object['id'] !== 'string') {
        throw new CreateFailedError(
          `POST ${descriptor.collectionPath} answered without an id; is the API URL right?`,
        );
      }
      return { object, recovered: false };
    } catch (err) {
      // Without a marker nothing tells our object apart: never risk a duplicate.
      if (!isOutcomeUnknown(err) || !marker) throw err;
      last = err;
    }
    const found = await findByMarker(client, descriptor, marker.owner, marker.key, known);
    if (found) return { object: found, recovered: true };
  }
  throw new CreateFailedError(
    `${descriptor.collectionPath}: the outcome of POST stayed unknown ${count(attempts, 'time')} and no object ` +
      `with marker ${marker?.owner}/${marker?.key} was found; run apply again (${(last as Error).message})`,
    { cause: last },
  );
}

/** The newest live object of the kind with this owner and key, other than the `known` ones. */
export async function findByMarker(
  client: ApplyClient,
  descriptor: ManagedDescriptor,
  owner: string,
  key: string,
  known: ReadonlySet<string>,
): Promise<LiveObject | undefined> {
  let found: LiveObject | undefined;
  for await (const item of client.listAll<unknown>(descriptor.collectionPath, descriptor.listKey)) {
    if (!isRecord(item) || typeof item['id'] !== 'string' || known.has(item['id'])) continue;
    const m = decodeMarker(item['metadata']);
    // Lists are newest first: the first match is the newest.
    if (m?.owner === owner && m.key === key) {
      found = item;
      break;
    }
  }
  return found;
}
