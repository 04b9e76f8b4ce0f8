import * as undici from 'undici';
import { MockAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { Agent, dispatcherRequest, request } from '../../src/api/undici.js';

// The client loads undici's Agent and request() by their paths inside the package; an undici release
// that moves them must fail here, not in a user's first request.
describe('the parts of undici the client loads alone', () => {
  it('are the ones undici exports', () => {
    expect(Agent).toBe(undici.Agent);
    expect(dispatcherRequest).toBe(undici.Dispatcher.prototype.request);
  });

  it('sends a request through any dispatcher', async () => {
    const mock = new MockAgent();
    mock.disableNetConnect();
    mock.get('http://api.test').intercept({ path: '/ping', method: 'GET' }).reply(200, { ok: true });
    const res = await request(mock, { origin: 'http://api.test', path: '/ping', method: 'GET' });
    expect(res.statusCode).toBe(200);
    expect(await res.body.json()).toEqual({ ok: true });
    await mock.close();
  });
});
