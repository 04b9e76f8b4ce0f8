// The two parts of undici the client uses, loaded alone. undici's index loads all of it (fetch,
// WebSocket, cookies, mocks, caches, EventSource): some 100 files that every command would compile
// before its first request. undici has no `exports` map: these paths are its own module layout, which
// test/api/undici.test.ts checks against the index on every install.
import { createRequire } from 'node:module';
import type { Dispatcher, Agent as UndiciAgent } from 'undici';

const require = createRequire(import.meta.url);

export const Agent = require('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;

/** undici's `Dispatcher.prototype.request`, which only its index attaches to the prototype. */
export const dispatcherRequest = require('undici/lib/api/api-request.js') as (
  this: Dispatcher,
  options: Dispatcher.RequestOptions,
) => Promise<Dispatcher.ResponseData>;

/**
 * `dispatcher.request(options)` for any dispatcher: one of undici's own (a MockAgent, say) or another
 * with a `request` method has it; an Agent loaded alone does not until undici's index is loaded.
 */
export function request(
  dispatcher: Dispatcher,
  options: Dispatcher.RequestOptions,
): Promise<Dispatcher.ResponseData> {
  const own = (dispatcher as { request?: typeof dispatcherRequest }).request;
  return (typeof own === 'function' ? own : dispatcherRequest).call(dispatcher, options);
}
