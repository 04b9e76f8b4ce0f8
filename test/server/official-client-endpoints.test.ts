// The official TypeScript client (@ngrok/ngrok-api 0.11.0, the latest) against accord serve's
// /endpoints. Its `endpoints` service has `get` and `list` (paging with `beforeId`), used unchanged.
// It has no create, update or delete for endpoints yet: those are sent through the client's own HTTP
// client and argument serializer exactly as its generated code sends them for every other kind
// (camelCase turned to snake_case, the path's `id` in the PATCH body, `Ngrok-Version: 2`), and read
// back with its deserializer, so that a client that adds them works unchanged.
import { type Endpoint, Ngrok } from '@ngrok/ngrok-api';
import * as util from '@ngrok/ngrok-api/lib/util.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { AGENT_TCP, AGENT_WEB, ALLOWS, restrictIps, useEndpointApi } from './endpoint-helpers.js';

const service = useEndpointApi();
let ngrok: Ngrok;
beforeAll(() => {
  ngrok = new Ngrok({ apiToken: 'test-key', baseUrl: service.api.server.url });
});

interface Wretch {
  url(path: string): Wretch;
  post(body: string): Wretch;
  patch(body: string): Wretch;
  delete(): Wretch;
  json<T>(parse: (payload: unknown) => T): Promise<T>;
}
interface CloudEndpoint extends Endpoint {
  url: string;
  trafficPolicy: string;
  description: string;
  bindings: string[];
  poolingEnabled: boolean;
  port: number;
  publicUrl: string;
}

/** The requests the client's generated code makes for a service with create, update and delete. */
function writer() {
  const http = (ngrok as unknown as { httpClient: Wretch }).httpClient;
  const answer = <T>(request: Wretch): Promise<T> =>
    request
      .json((payload) => util.deserializeResult(payload) as T)
      .then((f) => f, util.onRejected) as Promise<T>;
  return {
    create: (arg: Record<string, unknown>) =>
      answer<CloudEndpoint>(http.url('/endpoints').post(util.serializeArgument(arg))),
    update: (arg: { id: string } & Record<string, unknown>) =>
      answer<CloudEndpoint>(http.url(`/endpoints/${arg.id}`).patch(util.serializeArgument(arg))),
    delete: (id: string) => answer<void>(http.url(`/endpoints/${id}`).delete()),
  };
}

describe("the official TypeScript client with accord serve's endpoints", () => {
  const made: CloudEndpoint[] = [];
  it('creates, gets and lists cloud endpoints page by page', async () => {
    const endpoints = writer();
    for (let i = 0; i < 3; i++) {
      made.push(
        await endpoints.create({
          type: 'cloud',
          url: `https://client${i}.example.com`,
          trafficPolicy: restrictIps({ ip_policies: [ALLOWS] }),
          description: `endpoint ${i}`,
          poolingEnabled: i === 0,
        }),
      );
    }
    const first = made[0]!;
    expect(first).toMatchObject({
      uri: `${service.api.server.url}/endpoints/${first.id}`,
      type: 'cloud',
      url: 'https://client0.example.com',
      publicUrl: 'https://client0.example.com',
      hostport: 'client0.example.com:443',
      port: 443,
      proto: 'https',
      poolingEnabled: true,
      description: 'endpoint 0',
      trafficPolicy: restrictIps({ ip_policies: [ALLOWS] }),
    });
    expect(await ngrok.endpoints.get(first.id)).toEqual(first);

    const everything = [...made]
      .reverse()
      .map((e) => e.id)
      .concat([AGENT_WEB, AGENT_TCP]);
    expect((await ngrok.endpoints.list(undefined, '2')).map((e) => e.id)).toEqual(everything);
    expect((await ngrok.endpoints.list()).map((e) => e.id)).toEqual(everything);
    expect((await ngrok.endpoints.list(made[1]!.id, '1')).map((e) => e.id)).toEqual(everything.slice(2));
  });

  it('updates and deletes them', async () => {
    const endpoints = writer();
    const first = made[0]!;
    const updated = await endpoints.update({
      id: first.id,
      url: 'https://client9.example.com',
      description: 'renamed',
    });
    expect(updated).toEqual({
      ...first,
      url: 'https://client9.example.com',
      publicUrl: 'https://client9.example.com',
      host: 'client9.example.com',
      hostport: 'client9.example.com:443',
      description: 'renamed',
      updatedAt: expect.any(String),
    });
    expect(await ngrok.endpoints.get(first.id)).toEqual(updated);

    const refused = await endpoints.update({ id: AGENT_WEB, description: 'x' }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ statusCode: 400, errorCode: 'ERR_NGROK_248' });
    expect((refused as { details: Map<string, string> }).details.get('operationId')).toMatch(/^op_/);

    for (const e of made) {
      // As its other delete methods do, it reads the empty 204 as JSON and rejects with a SyntaxError.
      await endpoints.delete(e.id).catch((err: unknown) => {
        if (!(err instanceof Error && err.name === 'SyntaxError')) throw err;
      });
    }
    expect((await ngrok.endpoints.list()).map((e) => e.id)).toEqual([AGENT_WEB, AGENT_TCP]);
    const gone = await ngrok.endpoints.get(first.id).catch((e: unknown) => e);
    expect(gone).toMatchObject({ statusCode: 404, errorCode: 'ERR_NOT_FOUND' });
  });
});
