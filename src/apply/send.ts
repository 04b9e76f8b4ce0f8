// Sends one change's planned requests (DESIGN §4): a create through createOnce, so that an unknown
// outcome never makes a duplicate; every other request as planned, with the IDs this apply has made
// filled in where the plan holds one known after apply (src/resources/known-after-apply.ts), and the
// marker's fingerprint taken of the values sent, those IDs included.
import { fillKnownAfterApply } from '../plan/references.js';
import { withFingerprintAsSent } from '../plan/requests.js';
import type { Plan, PlanChange, PlannedRequest } from '../plan/types.js';
import { descriptorFor, isManaged } from '../resources/index.js';
import { isRecord, type LiveObject } from '../resources/values.js';
import { createOnce } from './create.js';
import type { ApplyClient, ChangeResult } from './types.js';

export class RequestSender {
  /** The last object the API returned per ID (POST and PATCH answers), for --cert-dir. */
  readonly responses = new Map<string, LiveObject>();
  /** IDs made by this apply, by the address of the change that made them. */
  readonly #made = new Map<string, string>();
  /** IDs that carried a marker when the plan was made: never taken for a newly created object. */
  readonly #knownIds: ReadonlySet<string>;
  /** The plan's owner, whose markers the requests write. */
  readonly #owner: string;

  constructor(
    private readonly client: ApplyClient,
    plan: Plan,
    private readonly createAttempts: number,
  ) {
    this.#knownIds = new Set(plan.changes.map((c) => c.id).filter((id): id is string => id !== null));
    this.#owner = plan.owner;
  }

  /** Sends `change`'s requests in order; what a create makes is written into `result`. */
  async sendChange(change: PlanChange, result: ChangeResult): Promise<void> {
    for (const request of change.requests) await this.#send(change, request, result);
  }

  async #send(change: PlanChange, planned: PlannedRequest, result: ChangeResult): Promise<void> {
    const { client } = this;
    const idOf = (address: string) => this.#made.get(address);
    const filled = fillKnownAfterApply(planned, idOf) as PlannedRequest;
    // The marker records what is written, the IDs this apply made included.
    const descriptor = descriptorFor(change.kind);
    const written = withFingerprintAsSent(filled, change, this.#owner, idOf);
    // What the API takes of the body (a traffic policy as text), once the IDs are in it.
    const wire = isManaged(descriptor) && written.body ? descriptor.wireBody : undefined;
    const request = wire && written.body ? { ...written, body: wire(written.body) } : written;
    if (request.method === 'POST' && isManaged(descriptor)) {
      const body = request.body ?? {};
      const { object, recovered } = await createOnce(
        client,
        descriptor,
        body,
        this.#knownIds,
        this.createAttempts,
      );
      const id = String(object['id']);
      this.responses.set(id, object);
      this.#made.set(change.address, id);
      if (change.action === 'replace' && change.id !== null) result.replaced_id = change.id;
      result.id = id;
      if (recovered) result.recovered = true;
      return;
    }
    let answer: unknown;
    if (request.method === 'POST') answer = await client.post(request.path, request.body ?? {});
    else if (request.method === 'PATCH') answer = await client.patch(request.path, request.body ?? {});
    else if (request.method === 'PUT') answer = await client.put(request.path, request.body ?? {});
    else await client.delete(request.path);
    if (isRecord(answer) && typeof answer['id'] === 'string') this.responses.set(answer['id'], answer);
  }
}
