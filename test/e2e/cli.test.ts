// accord apply in-process against the local service over real HTTP: approval, saved plans (stale,
// unsafe), --json, --cert-dir, the one-per-type rule, Ctrl-C.
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeCertificates } from '../../src/apply/certs.js';
import { managedDescriptors } from '../../src/resources/index.js';
import { accord, accordFile, byKey, listAll, type Obj, VPN } from '../apply/helpers.js';
import { useSeededService } from '../support/server.js';

const KEY = 'test-key-apply-cli-0123456789';

describe('accord apply', () => {
  const server = useSeededService(KEY);
  const dir = mkdtempSync(join(tmpdir(), 'accord-apply-'));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  // In the files' directory, as CI runs: a saved plan names its files relative to it.
  const run = (args: string[], extra = {}) => accord(server.url, KEY, args, { cwd: dir, ...extra });
  const list = (path: string, key: string) => listAll(server.url, KEY, path, key);

  // Each test owns its owner name; clean the one-per-type IP restrictions between tests.
  afterEach(async () => {
    await run(['apply', '-f', file('empty.yaml', 'version: 1\nowner: iprs\n'), '--auto-approve', '--force']);
  });

  it('refuses without a terminal and without --auto-approve, changing nothing', async () => {
    const f = file('a.yaml', accordFile('approval', ['h1', 'h2']));
    const r = await run(['apply', '-f', f]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('Plan: 2 to create');
    expect(r.err).toContain('Error: not applying: nothing was changed.');
    expect(r.err).toContain('--auto-approve');
    expect(byKey(await list('/ssh_host_certificates', 'ssh_host_certificates'), 'approval').size).toBe(0);

    const questions: string[] = [];
    const no = await run(['apply', '-f', f], {
      isTty: true,
      prompt: async (q: string) => {
        questions.push(q);
        return 'y';
      },
    });
    expect(no.code).toBe(1);
    expect(questions[0]).toContain('Only "yes" will be accepted');
    expect(no.err).toContain('Apply cancelled; nothing was changed.');
    expect(byKey(await list('/ssh_host_certificates', 'ssh_host_certificates'), 'approval').size).toBe(0);

    const yes = await run(['apply', '-f', f], { prompt: async () => 'yes\n' });
    expect(yes.code, yes.err).toBe(0);
    expect(yes.out).toMatch(/^\+ ssh_host_certificates\.h1 \(shcrt_\w+\) \d+ ms$/m);
    expect(yes.out).toMatch(
      /^Apply complete: 2 created, 0 patched, 0 put, 0 replaced, 0 deleted, 0 adopted in (\d+ ms|\d+\.\d s)\.$/m,
    );
    expect(byKey(await list('/ssh_host_certificates', 'ssh_host_certificates'), 'approval').size).toBe(2);

    const again = await run(['apply', '-f', f]);
    expect(again.code).toBe(0);
    expect(again.out).toContain('No changes.');
    expect(again.out).not.toContain('Apply complete');
  });

  it('prints a machine-readable result with --json and writes certificates with --cert-dir', async () => {
    const f = file('c.yaml', accordFile('certs', ['web', 'db']));
    const certs = join(dir, 'certs', 'nested');
    const r = await run(['apply', '-f', f, '--auto-approve', '--json', '--cert-dir', certs]);
    expect(r.code, r.err).toBe(0);
    const result = JSON.parse(r.out) as {
      status: string;
      summary: Record<string, number>;
      changes: { address: string; status: string; id: string }[];
      certificates: { key: string; id: string; path: string }[];
      requests: { total: number };
    };
    expect(result.status).toBe('complete');
    expect(result.summary.created).toBe(2);
    expect(result.changes.map((c) => c.status)).toEqual(['done', 'done']);
    expect(result.certificates.map((c) => c.key).sort()).toEqual(['db', 'web']);
    expect(result.requests.total).toBeGreaterThanOrEqual(5);
    expect(r.err).toContain('Plan: 2 to create'); // the plan went to stderr
    const live = byKey(await list('/ssh_host_certificates', 'ssh_host_certificates'), 'certs');
    const path = join(certs, 'web-cert.pub');
    expect(readFileSync(path, 'utf8')).toBe(`${String(live.get('web')![0]!['certificate']).trim()}\n`);
    expect(statSync(path).mode & 0o777).toBe(0o644);

    // Unchanged certificates are written too, from the live list.
    writeFileSync(path, 'stale');
    const again = await run(['apply', '-f', f, '--cert-dir', certs]);
    expect(again.code).toBe(0);
    expect(again.out).toContain('Wrote 2 SSH host certificates');
    expect(readFileSync(path, 'utf8')).toContain('ssh-ed25519-cert-v01@openssh.com ');
  });

  it('refuses an IP policy ID the account does not have before sending anything, in --json', async () => {
    const missing = `ipp_2demoMissing${'0'.repeat(15)}`;
    const f = file('refused.yaml', accordFile('iprs', [], { gone: { type: 'agent', policies: [missing] } }));
    const r = await run(['apply', '-f', f, '--auto-approve', '--json']);
    expect(r.code).toBe(1);
    const error = JSON.parse(r.out) as { error: { code: string; message: string } };
    expect(error.error.code).toBe('ACCORD_PLAN');
    expect(error.error.message).toContain(`ip_policies names ${missing}, which the account does not have`);
    const live = await listAll(server.url, KEY, '/ip_restrictions', 'ip_restrictions');
    expect(live.filter((o) => o['type'] === 'agent')).toEqual([]);
  });

  it('refuses a --cert-dir that is a file before changing anything', async () => {
    const f = file('cd.yaml', accordFile('certdir', ['one']));
    const notDir = file('not-a-dir', '');
    const r = await run(['apply', '-f', f, '--auto-approve', '--cert-dir', notDir]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      `--cert-dir ${notDir} is a file (or lies under one), not a directory; give a writable`,
    );
    expect(r.out).not.toMatch(/^\+ /m);
    expect(byKey(await list('/ssh_host_certificates', 'ssh_host_certificates'), 'certdir').size).toBe(0);
  });

  it('shows a live counter only on a terminal, and writes the CI step summary', async () => {
    const f = file('t.yaml', accordFile('tty', ['t1', 't2', 't3']));
    const summary = join(dir, 'step-summary.md');
    const env = {
      ACCORD_API_KEY: KEY,
      ACCORD_API_URL: server.url,
      GITHUB_STEP_SUMMARY: summary,
      NO_COLOR: '1',
    };
    const tty = await run(['apply', '-f', f, '--auto-approve'], { isTty: true, env });
    expect(tty.code, tty.err).toBe(0);
    const clear = '\r\u001b[K';
    expect(tty.out.split(clear).some((part) => /^\[\d\/3 finished, \d under way\]$/.test(part))).toBe(true);
    expect(tty.out).toContain(`${clear}+ ssh_host_certificates.t1 `);
    expect(readFileSync(summary, 'utf8')).toContain('### accord apply: complete');
    const plain = await run(['apply', '-f', file('t2.yaml', accordFile('tty', ['t1'])), '--auto-approve']);
    expect(plain.code).toBe(0);
    expect(plain.out).not.toContain('\r');
  });

  it('never writes a certificate outside the directory', () => {
    const target = join(dir, 'guard');
    for (const key of ['../escape', 'a/b', '.hidden', '']) {
      expect(() =>
        writeCertificates(target, [
          { section: 'ssh_host_certificates', key, id: 'shcrt_x', certificate: 'x', suffix: '-cert.pub' },
        ]),
      ).toThrow(
        expect.objectContaining({
          code: 'ACCORD_CERT_DIR',
          message: expect.stringMatching(/not a safe file name/),
        }),
      );
    }
  });

  it('applies a saved plan, refuses it once a planned resource changed, and says when it is applied', async () => {
    const f = file('s.yaml', accordFile('saved', ['s1', 's2']));
    expect((await run(['apply', '-f', f, '--auto-approve'])).code).toBe(0);
    const edited = file('s2.yaml', accordFile('saved', ['s1', 's3']).replace('version: 1', 'version: 1'));
    const planFile = join(dir, 'plan.json');
    expect((await run(['plan', '-f', edited, '--out', planFile])).code).toBe(0);

    // Someone changes s2 (which the plan deletes) meanwhile.
    const s2 = byKey(await list('/ssh_host_certificates', 'ssh_host_certificates'), 'saved').get('s2')![0]!;
    const res = await fetch(`${server.url}/ssh_host_certificates/${String(s2['id'])}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${KEY}`, 'service-version': '2', 'content-type': 'application/json' },
      body: JSON.stringify({ description: 'touched by hand' }),
    });
    expect(res.status).toBe(200);
    const stale = await run(['apply', planFile, '-f', edited]);
    expect(stale.code).toBe(1);
    expect(stale.err).toContain(
      'Error: plan is stale: ssh_host_certificates.s2: its description is "touched by hand" in the account now, "" in the plan; run plan again.',
    );
    const staleJson = await run(['apply', planFile, '-f', edited, '--json']);
    expect(staleJson.code).toBe(1);
    expect(JSON.parse(staleJson.out)).toEqual({
      error: { code: 'ACCORD_STALE_PLAN', message: expect.stringContaining('plan is stale') },
    });
    expect(byKey(await list('/ssh_host_certificates', 'ssh_host_certificates'), 'saved').has('s3')).toBe(
      false,
    );

    // Another API URL is refused before anything is read.
    const other = await accord('http://127.0.0.1:9', KEY, ['apply', planFile, '-f', edited, '--json'], {
      cwd: dir,
    });
    expect(other.code).toBe(1);
    expect(JSON.parse(other.out).error.code).toBe('ACCORD_STALE_PLAN');
    expect(other.err).toContain(`plan is stale: it was made for ${server.url}, not http://127.0.0.1:9`);

    expect((await run(['plan', '-f', edited, '--out', planFile])).code).toBe(0);
    const ok = await run(['apply', planFile, '-f', edited, '--stats']);
    expect(ok.code, ok.err).toBe(0);
    // Planning again lists every managed kind (one page each; cloud endpoints only for files that
    // have the section, which this one has not); nothing per object.
    const lists = managedDescriptors.filter((d) => !d.listedOnlyWhenWritten).length;
    expect(ok.err).toMatch(new RegExp(`^ {2}GET +${lists} +\\(200: ${lists}\\)$`, 'm'));
    expect(ok.out).toMatch(/^- ssh_host_certificates\.s2 \(shcrt_\w+\) \d+ ms$/m);
    expect(
      [...byKey(await list('/ssh_host_certificates', 'ssh_host_certificates'), 'saved').keys()].sort(),
    ).toEqual(['s1', 's3']);
    // Applied once, the same plan has nothing left to do, and says so.
    const twice = await run(['apply', planFile, '-f', edited, '--json']);
    expect(twice.code, twice.err).toBe(0);
    expect(twice.err).toContain('No changes: the account already matches this plan (');
    expect(JSON.parse(twice.out)).toMatchObject({ status: 'complete', changes: [] });
    const thrice = await run(['apply', planFile, '-f', edited]);
    expect(thrice.code).toBe(0);
    expect(thrice.out).toContain('the account already matches this plan');
    expect(thrice.out).not.toContain('Apply complete');
  });

  it('refuses a saved plan when an edge module it configures changed; an edited request is never sent', async () => {
    const edge = 'edgtcp_2demoDb00000000000000000000';
    const f = file(
      'm.yaml',
      `version: 1\nowner: modules\ntcp_edges:\n  ${edge}:\n    ip_restriction: {enabled: true, ip_policies: [${VPN}]}\n`,
    );
    const planFile = join(dir, 'module-plan.json');
    expect((await run(['plan', '-f', f, '--out', planFile])).code).toBe(0);
    const res = await fetch(`${server.url}/edges/tcp/${edge}/ip_restriction`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${KEY}`, 'service-version': '2', 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: false, ip_policy_ids: [VPN] }),
    });
    expect(res.status).toBe(200);
    const stale = await run(['apply', planFile, '-f', f, '--json']);
    expect(stale.code).toBe(1);
    expect(JSON.parse(stale.out).error.code).toBe('ACCORD_STALE_PLAN');
    expect(stale.err).toContain(
      `plan is stale: tcp_edges.${edge}.ip_restriction: the account shows {"enabled":false,"ip_policies":[`,
    );

    // A request of the plan made now, pointed elsewhere: the apply sends the fresh plan's own.
    expect((await run(['plan', '-f', f, '--out', planFile])).code).toBe(0);
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as {
      changes: { requests: { path: string; body: Record<string, unknown> }[] }[];
    };
    plan.changes[0]!.requests[0]!.path = '//elsewhere.example/steal';
    plan.changes[0]!.requests[0]!.body['enabled'] = false;
    writeFileSync(planFile, JSON.stringify(plan));
    const edited = await run(['apply', planFile, '-f', f, '--json']);
    expect(edited.code, edited.err).toBe(0);
    const module = await fetch(`${server.url}/edges/tcp/${edge}/ip_restriction`, {
      headers: { authorization: `Bearer ${KEY}`, 'service-version': '2' },
    });
    expect(await module.json()).toMatchObject({ enabled: true, ip_policies: [{ id: VPN }] });
  });

  it('refuses a saved plan that a safety rule refused (exit 3), and a file that is no plan', async () => {
    const protectedFile = file(
      'p.yaml',
      'version: 1\nowner: iprs\nip_restrictions:\n  keep:\n    type: agent\n    enforced: true\n    ip_policies: [ipp_2demoOffice0000000000000000]\n    lifecycle: {prevent_destroy: true}\n',
    );
    expect((await run(['apply', '-f', protectedFile, '--auto-approve'])).code).toBe(0);
    const planFile = join(dir, 'unsafe.json');
    const refused = await run([
      'plan',
      '-f',
      file('none.yaml', 'version: 1\nowner: iprs\n'),
      '--out',
      planFile,
    ]);
    expect(refused.code).toBe(3);
    const r = await run(['apply', planFile, '-f', 'none.yaml']);
    expect(r.code).toBe(3);
    expect(r.err).toContain('unsafe.json is refused by a safety rule: ip_restrictions.keep: would delete');
    const rJson = await run(['apply', planFile, '-f', 'none.yaml', '--json']);
    expect(rJson.code).toBe(3);
    expect(JSON.parse(rJson.out).error.code).toBe('ACCORD_UNSAFE_PLAN');
    // The verdict comes from the account, never from the file: a file that claims to be safe is not.
    const forged = JSON.parse(readFileSync(planFile, 'utf8')) as { safe: boolean; unsafe_reasons: string[] };
    forged.safe = true;
    forged.unsafe_reasons = [];
    writeFileSync(planFile, JSON.stringify(forged));
    const again = await run(['apply', planFile, '-f', 'none.yaml', '--force']);
    expect(again.code, again.err).toBe(3);
    expect(again.err).toContain('ip_restrictions.keep: would delete');
    expect(again.err).toContain('which is protected (lifecycle.prevent_destroy)');
    const viaFile = await run(['apply', '-f', join(dir, 'none.yaml'), '--auto-approve']);
    expect(viaFile.code).toBe(3);
    // Clear the protection so that the cleanup can delete it.
    writeFileSync(
      protectedFile,
      readFileSync(protectedFile, 'utf8').replace('prevent_destroy: true', 'prevent_destroy: false'),
    );
    expect((await run(['apply', '-f', protectedFile, '--auto-approve'])).code).toBe(0);

    const notPlan = await run(['apply', resolve('examples/accord.yaml')]);
    expect(notPlan.code).toBe(1);
    expect(notPlan.err).toContain('is not JSON');
    const notPlanJson = await run(['apply', resolve('examples/accord.yaml'), '--json']);
    expect(JSON.parse(notPlanJson.out).error.code).toBe('ACCORD_PLAN_FILE');
  });

  it('judges the destroy threshold of a saved plan by the apply command line, not by the file', async () => {
    const hosts = Array.from({ length: 10 }, (_, i) => `t${i}`);
    expect(
      (await run(['apply', '-f', file('t.yaml', accordFile('threshold', hosts)), '--auto-approve'])).code,
    ).toBe(0);
    const planFile = join(dir, 'forced.json');
    const fewer = file('t4.yaml', accordFile('threshold', hosts.slice(4)));
    const planned = await run(['plan', '-f', fewer, '--force', '--out', planFile]);
    expect(planned.code, planned.err).toBe(0);
    expect((JSON.parse(readFileSync(planFile, 'utf8')) as { safe: boolean }).safe).toBe(true);

    const refused = await run(['apply', planFile, '-f', fewer]);
    expect(refused.code).toBe(3);
    expect(refused.err).toContain(
      'forced.json is refused by a safety rule: would delete or replace 4 of 10 managed resources (40%), more than --max-destroy-percent 30',
    );
    expect(byKey(await list('/ssh_host_certificates', 'ssh_host_certificates'), 'threshold').size).toBe(10);
    const allowed = await run(['apply', planFile, '-f', fewer, '--max-destroy-percent', '40']);
    expect(allowed.code, allowed.err).toBe(0);
    expect(byKey(await list('/ssh_host_certificates', 'ssh_host_certificates'), 'threshold').size).toBe(6);
    const cleanup = await run([
      'apply',
      '-f',
      file('t0.yaml', accordFile('threshold', [])),
      '--auto-approve',
      '--force',
    ]);
    expect(cleanup.code, cleanup.err).toBe(0);
  });

  it("replaces an IP restriction's type, renames one, and swaps two types, under one-per-type", async () => {
    const step = async (restrictions: Parameters<typeof accordFile>[2]) => {
      const r = await run([
        'apply',
        '-f',
        file('ipr.yaml', accordFile('iprs', [], restrictions)),
        '--auto-approve',
      ]);
      expect(r.code, r.out + r.err).toBe(0);
      const live = (await list('/ip_restrictions', 'ip_restrictions')).filter(
        (o) => byKey([o], 'iprs').size > 0,
      );
      const keyOf = (o: Obj) => [...byKey([o], 'iprs').keys()][0];
      return {
        out: r.out,
        live: live.map((o: Obj) => `${keyOf(o)}:${String(o['type'])}`).sort(),
        ids: new Map(live.map((o: Obj) => [String(o['type']), String(o['id'])])),
      };
    };
    expect((await step({ office: { type: 'dashboard' } })).live).toEqual(['office:dashboard']);
    const replaced = await step({ office: { type: 'api' } });
    expect(replaced.live).toEqual(['office:api']);
    expect(replaced.out).toMatch(/^-\/\+ ip_restrictions\.office \(ipx_\w+, replaces ipx_\w+\) \d+ ms$/m);
    // A rename is a PATCH of the marker: the restriction keeps its ID, nothing is deleted.
    const renamed = await step({ 'office-api': { type: 'api', policies: [VPN] } });
    expect(renamed.live).toEqual(['office-api:api']);
    expect(renamed.ids).toEqual(replaced.ids);
    expect(renamed.out).toMatch(/^~ ip_restrictions\.office-api \(ipx_\w+\) \d+ ms$/m);
    expect(renamed.out).not.toContain('- ip_restrictions.office');
    // The API restriction keeps the VPN policy: its IPv6 range is the only IPv6 the API lets in, and
    // dropping it would be a lockout of IPv6 API traffic, which the guard refuses.
    const two = await step({ 'office-api': { type: 'api', policies: [VPN] }, web: { type: 'dashboard' } });
    expect(two.live).toEqual(['office-api:api', 'web:dashboard']);
    // Swapping types: two PATCHes; each restriction stays where it is and changes its key.
    const swapped = await step({
      'office-api': { type: 'dashboard' },
      web: { type: 'api', policies: [VPN] },
    });
    expect(swapped.live).toEqual(['office-api:dashboard', 'web:api']);
    expect(swapped.ids).toEqual(two.ids);
    expect(swapped.out).toMatch(/Apply complete: 0 created, 2 patched, .*0 replaced, 0 deleted/);
    const second = await run(['plan', '-f', join(dir, 'ipr.yaml'), '--detailed-exitcode']);
    expect(second.code).toBe(0);
  });

  it('on Ctrl-C finishes what is under way, starts nothing new, exits 130; the next apply finishes', async () => {
    const hosts = Array.from({ length: 30 }, (_, i) => `int-${i}`);
    const f = file('i.yaml', accordFile('interrupt', hosts));
    let interrupt: (() => void) | undefined;
    let unsubscribed = false;
    let out = '';
    const r = await accord(server.url, KEY, ['apply', '-f', f, '--auto-approve', '--parallelism', '2'], {
      onInterrupt: (handler: () => void) => {
        interrupt = handler;
        return () => {
          unsubscribed = true;
        };
      },
      stdout: (text: string) => {
        out += text;
        if (text.startsWith('+ ')) interrupt?.();
      },
    });
    r.out = out;
    expect(r.code).toBe(130);
    expect(unsubscribed).toBe(true);
    expect(r.err).toContain('Interrupted: no new changes start');
    expect(r.out).toMatch(
      /^Apply interrupted: (\d+) created, .*; 0 failed, 0 skipped, (\d+) not started in/m,
    );
    const [, created, notStarted] = /Apply interrupted: (\d+) created.* (\d+) not started/.exec(r.out)!;
    expect(Number(created) + Number(notStarted)).toBe(30);
    expect(Number(created)).toBeLessThanOrEqual(3);
    expect(byKey(await list('/ssh_host_certificates', 'ssh_host_certificates'), 'interrupt').size).toBe(
      Number(created),
    );
    const rest = await run(['apply', '-f', f, '--auto-approve']);
    expect(rest.code).toBe(0);
    expect(rest.out).toContain(`Apply complete: ${30 - Number(created)} created`);
  });
});
