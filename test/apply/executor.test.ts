// The DAG executor against a scripted in-memory client: order, parallelism, failure propagation,
// interrupts and creates whose outcome is unknown.
import { describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/apply/executor.js';
import { encodeMarker } from '../../src/resources/marker.js';
import { change, del, FakeClient, type Obj, planOf, post } from './fake.js';

describe('applyPlan', () => {
  it('keeps at most `parallelism` requests in flight and does everything once', async () => {
    const client = new FakeClient();
    const changes = Array.from({ length: 20 }, (_, i) => change(`k${i}`, 'create', [post(`k${i}`)]));
    const result = await applyPlan(planOf(changes), client, { parallelism: 3 });
    expect(result.status).toBe('complete');
    expect(result.summary.created).toBe(20);
    expect(client.maxInFlight).toBe(3);
    expect(client.objects).toHaveLength(20);
  });

  it('starts a change only after those it depends on are done, and a replace creates before it deletes', async () => {
    const client = new FakeClient();
    const freeing = change('a', 'delete', [del('ipx_old_a')]);
    const taking = change('b', 'create', [post('b')], {
      depends_on: ['ip_restrictions.a', 'ip_restrictions.c'],
    });
    const cbd = change('c', 'replace', [post('c'), del('ipx_old_c')], {
      replace_order: 'create_before_delete',
    });
    const result = await applyPlan(planOf([taking, cbd, freeing]), client, { parallelism: 4 });
    expect(result.status).toBe('complete');
    const at = (s: string) => client.log.indexOf(s);
    expect(at('DELETE /ip_restrictions/ipx_old_a')).toBeLessThan(at('POST /ip_restrictions b'));
    expect(at('DELETE /ip_restrictions/ipx_old_c')).toBeLessThan(at('POST /ip_restrictions b'));
    expect(at('POST /ip_restrictions c')).toBeLessThan(at('DELETE /ip_restrictions/ipx_old_c'));
    const c = result.changes.find((r) => r.key === 'c')!;
    expect(c.replaced_id).toBe('ipx_old_c');
    expect(c.id).toMatch(/^ipx_\d+$/);
  });

  it('skips what depends on a failure, goes on with the rest, and never deletes after a failed POST', async () => {
    const client = new FakeClient((method, _path, body) =>
      method === 'POST' && String((body as Obj)['metadata']).includes('"bad"') ? 'error' : 'ok',
    );
    const bad = change('bad', 'replace', [post('bad'), del('ipx_old_bad')], {
      replace_order: 'create_before_delete',
    });
    const dependent = change('dep', 'create', [post('dep')], { depends_on: ['ip_restrictions.bad'] });
    const second = change('dep2', 'create', [post('dep2')], { depends_on: ['ip_restrictions.dep'] });
    const fine = change('fine', 'create', [post('fine')]);
    const result = await applyPlan(planOf([bad, dependent, second, fine]), client, { parallelism: 2 });
    expect(result.status).toBe('failed');
    expect(result.summary).toMatchObject({ created: 1, failed: 1, skipped: 2 });
    expect(client.log).not.toContain('DELETE /ip_restrictions/ipx_old_bad');
    expect(result.changes.find((r) => r.key === 'bad')?.error).toMatchObject({
      code: 'ACCORD_API',
      http_status: 409,
    });
    const dep = result.changes.find((r) => r.key === 'dep')?.error;
    expect(dep?.code).toBe('ACCORD_DEPENDENCY');
    expect(dep?.message).toBe('it waits for ip_restrictions.bad, which failed');
    const dep2 = result.changes.find((r) => r.key === 'dep2')?.error;
    expect(dep2?.code).toBe('ACCORD_DEPENDENCY');
    expect(dep2?.message).toBe('it waits for ip_restrictions.dep, which was skipped');
  });

  it('finds a create whose answer was lost by its marker instead of posting again', async () => {
    let posts = 0;
    const client = new FakeClient((method) =>
      method === 'POST' && ++posts === 1 ? 'unknown-committed' : 'ok',
    );
    const result = await applyPlan(planOf([change('k', 'create', [post('k')])]), client, { parallelism: 1 });
    expect(result.status).toBe('complete');
    expect(result.changes[0]).toMatchObject({ status: 'done', recovered: true, id: 'ipx_1' });
    expect(client.objects).toHaveLength(1);
    expect(client.log).toEqual(['POST /ip_restrictions k', 'GET /ip_restrictions']);
  });

  it('posts again when the lost create is not there, and never takes the replaced object for it', async () => {
    let posts = 0;
    const client = new FakeClient((method) => (method === 'POST' && ++posts === 1 ? 'unknown' : 'ok'));
    // The object being replaced carries the same marker: it must not count as the new one.
    client.objects.push({ id: 'ipx_old_k', metadata: encodeMarker('o', 'k', false) });
    const replace = change('k', 'replace', [post('k'), del('ipx_old_k')], {
      replace_order: 'create_before_delete',
    });
    const result = await applyPlan(planOf([replace]), client, { parallelism: 1 });
    expect(result.status).toBe('complete');
    expect(client.log).toEqual([
      'POST /ip_restrictions k',
      'GET /ip_restrictions',
      'POST /ip_restrictions k',
      'DELETE /ip_restrictions/ipx_old_k',
    ]);
    expect(client.objects.map((o) => o['id'])).toEqual(['ipx_1']);
  });

  it('gives up on a create whose outcome stays unknown, without a duplicate', async () => {
    const client = new FakeClient((method) => (method === 'POST' ? 'unknown' : 'ok'));
    const result = await applyPlan(planOf([change('k', 'create', [post('k')])]), client, {
      parallelism: 1,
      createAttempts: 3,
    });
    expect(result.status).toBe('failed');
    expect(result.changes[0]?.error?.code).toBe('ACCORD_CREATE_FAILED');
    expect(result.changes[0]?.error?.message).toContain('stayed unknown 3 times');
    expect(client.log.filter((l) => l.startsWith('POST'))).toHaveLength(3);
  });

  it('an interrupt after the last change started, with every change done, is a complete apply', async () => {
    const controller = new AbortController();
    const changes = [change('a', 'create', [post('a')]), change('b', 'create', [post('b')])];
    let ended = 0;
    const result = await applyPlan(planOf(changes), new FakeClient(), {
      parallelism: 2,
      signal: controller.signal,
      // Ctrl-C as the last change ends: nothing is left to start.
      onChangeEnd: () => {
        if (++ended === 2) controller.abort();
      },
    });
    expect(controller.signal.aborted).toBe(true);
    expect(result.changes.map((c) => c.status)).toEqual(['done', 'done']);
    expect(result.status).toBe('complete');
  });

  it('on interrupt starts nothing new, finishes what is under way, and reports the rest', async () => {
    const controller = new AbortController();
    const client = new FakeClient();
    const changes = Array.from({ length: 10 }, (_, i) =>
      change(`k${i}`, 'replace', [post(`k${i}`), del(`ipx_old_k${i}`)], {
        replace_order: 'create_before_delete',
      }),
    );
    let ended = 0;
    const result = await applyPlan(planOf(changes), client, {
      parallelism: 2,
      signal: controller.signal,
      onChangeEnd: () => {
        if (++ended === 1) controller.abort();
      },
    });
    expect(result.status).toBe('interrupted');
    // Two were under way when the first ended (it ends before it hands its slot on): both finished
    // both of their requests, and nothing else started.
    const done = result.changes.filter((c) => c.status === 'done');
    expect(done.map((c) => c.key)).toEqual(['k0', 'k1']);
    expect(result.summary.not_started).toBe(8);
    expect(client.log.filter((l) => l.startsWith('POST'))).toHaveLength(2);
    for (const c of done) expect(client.log).toContain(`DELETE /ip_restrictions/ipx_old_${c.key}`);
  });
});

describe('applyPlan: states', () => {
  it('a cycle in depends_on fails its changes instead of hanging; the rest run', async () => {
    const client = new FakeClient();
    const a = change('a', 'create', [post('a')], { depends_on: ['ip_restrictions.b'] });
    const b = change('b', 'create', [post('b')], { depends_on: ['ip_restrictions.a'] });
    const c = change('c', 'create', [post('c')], { depends_on: ['ip_restrictions.a'] });
    const free = change('free', 'create', [post('free')]);
    const result = await applyPlan(planOf([a, b, c, free]), client, { parallelism: 2 });
    expect(result.changes.map((r) => [r.key, r.status])).toEqual([
      ['a', 'failed'],
      ['b', 'failed'],
      ['c', 'failed'],
      ['free', 'done'],
    ]);
    expect(client.log).toEqual(['POST /ip_restrictions free']);
  });

  it('reports progress as changes start and end, and a throwing callback does not stall the run', async () => {
    const client = new FakeClient();
    const seen: string[] = [];
    const run = applyPlan(
      planOf([change('a', 'create', [post('a')]), change('b', 'create', [post('b')])]),
      client,
      {
        parallelism: 1,
        onProgress: (p) => seen.push(`${p.finished}/${p.running}/${p.total}`),
        onChangeEnd: () => {
          throw new Error('callback broke');
        },
      },
    );
    await expect(run).rejects.toThrow('callback broke');
    expect(seen).toEqual(['0/1/2', '1/0/2', '1/1/2', '2/0/2']);
    expect(client.objects).toHaveLength(2);
  });
});
