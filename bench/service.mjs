// Throughput of `accord serve` against a bare fastify route sending the same bytes, in the same run:
// GET of one resource and GET of a 100-item list page. Run after `npm run build`:
//   node bench/service.mjs [--json] [--duration SECONDS] [--rounds N] [--connections N]
// The servers run in a child process so that autocannon does not share their event loop.
import { fork } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    duration: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
    serve: { type: 'boolean', default: false },
  },
});

if (values.serve) {
  await serveTargets();
} else {
  await measure();
}

async function serveTargets() {
  const { startServer } = await import('../dist/server/index.js');
  const { default: Fastify } = await import('fastify');
  const server = await startServer({
    port: 0,
    apiKeys: ['bench-key'],
    seed: new URL('../examples/seed.yaml', import.meta.url).pathname,
  });
  const headers = {
    authorization: 'Bearer bench-key',
    'service-version': '2',
    'content-type': 'application/json',
  };
  const call = async (method, path, body) => {
    const res = await fetch(server.url + path, { method, headers, body: body && JSON.stringify(body) });
    return { status: res.status, text: await res.text() };
  };
  for (let i = 0; i < 100; i++)
    await call('POST', '/ip_policies', { description: `policy ${i}`, metadata: '{"team":"platform"}' });
  const created = await call('POST', '/ip_restrictions', {
    type: 'dashboard',
    enforced: true,
    ip_policy_ids: ['ipp_2demoOffice0000000000000000', 'ipp_2demoVpn0000000000000000000'],
    description: 'Office only',
    metadata: '{"accord":{"owner":"platform","key":"office"}}',
  });
  const id = JSON.parse(created.text).id;
  const one = await call('GET', `/ip_restrictions/${id}`);
  const page = await call('GET', '/ip_policies?limit=100');
  const bare = Fastify({ logger: false });
  bare.get('/one', (_req, reply) =>
    reply.header('content-type', 'application/json; charset=utf-8').send(one.text),
  );
  bare.get('/page', (_req, reply) =>
    reply.header('content-type', 'application/json; charset=utf-8').send(page.text),
  );
  await bare.listen({ host: '127.0.0.1', port: 0 });
  const bareUrl = `http://127.0.0.1:${bare.server.address().port}`;
  process.send({
    headers,
    targets: {
      one: { accord: `${server.url}/ip_restrictions/${id}`, bare: `${bareUrl}/one`, bytes: one.text.length },
      page: {
        accord: `${server.url}/ip_policies?limit=100`,
        bare: `${bareUrl}/page`,
        bytes: page.text.length,
      },
    },
  });
  process.on('disconnect', async () => {
    await server.close();
    await bare.close();
    process.exit(0);
  });
}

async function measure() {
  const { default: autocannon } = await import('autocannon');
  const child = fork(new URL(import.meta.url).pathname, ['--serve'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { headers, targets } = await new Promise((resolve) => child.once('message', resolve));
  const run = async (url) => {
    const result = await autocannon({
      url,
      headers,
      connections: Number(values.connections),
      duration: Number(values.duration),
    });
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    return { req_per_s: Math.round(result.requests.average), p99_ms: result.latency.p99 };
  };
  // The machine may be shared: alternate the two servers over several rounds and keep each one's median.
  const median = (runs) => runs.sort((a, b) => a.req_per_s - b.req_per_s)[Math.floor(runs.length / 2)];
  const rows = {};
  for (const [name, t] of Object.entries(targets)) {
    for (const url of [t.bare, t.accord]) await autocannon({ url, headers, connections: 10, duration: 1 }); // warm-up
    const bareRuns = [];
    const accordRuns = [];
    for (let round = 0; round < Number(values.rounds); round++) {
      bareRuns.push(await run(t.bare));
      accordRuns.push(await run(t.accord));
    }
    const bare = median(bareRuns);
    const accord = median(accordRuns);
    rows[name] = {
      bytes: t.bytes,
      bare,
      accord,
      ratio: Number((accord.req_per_s / bare.req_per_s).toFixed(2)),
    };
  }
  child.disconnect();
  const report = {
    bench: 'service',
    connections: Number(values.connections),
    duration_s: Number(values.duration),
    rounds: Number(values.rounds),
    results: rows,
  };
  if (values.json) {
    console.log(JSON.stringify(report));
  } else {
    console.log(
      `accord serve vs bare fastify route (same payload), ${values.connections} connections, median of ${values.rounds} alternating ${values.duration}s runs`,
    );
    for (const [name, r] of Object.entries(rows)) {
      console.log(
        `${name.padEnd(5)} ${String(r.bytes).padStart(6)} B  bare ${r.bare.req_per_s} req/s p99 ${r.bare.p99_ms} ms | accord ${r.accord.req_per_s} req/s p99 ${r.accord.p99_ms} ms | ratio ${r.ratio}`,
      );
    }
  }
  return report;
}
