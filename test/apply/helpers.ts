// Shared by the apply tests: an in-process CLI run with captured output, and account listings.
import { ApiClient } from '../../src/api/client.js';
import type { Io } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';

export interface Captured extends Io {
  out: string;
  err: string;
}

export function capture(env: Record<string, string>, extra: Partial<Io> = {}): Captured {
  const io: Captured = {
    out: '',
    err: '',
    stdout: (t: string) => {
      io.out += t;
    },
    stderr: (t: string) => {
      io.err += t;
    },
    isTty: false,
    env,
    cwd: process.cwd(),
    ...extra,
  };
  return io;
}

export interface Run {
  code: number;
  out: string;
  err: string;
}

export async function accord(
  url: string,
  key: string,
  args: string[],
  extra: Partial<Io> = {},
): Promise<Run> {
  const io = capture({ ACCORD_API_KEY: key, ACCORD_API_URL: url }, extra);
  const code = await main(args, io);
  return { code, out: io.out, err: io.err };
}

export type Obj = Record<string, unknown>;

/** Every object of a collection, through a client that retries reads (also under injected faults). */
export async function listAll(url: string, key: string, path: string, listKey: string): Promise<Obj[]> {
  const client = new ApiClient({
    baseUrl: url,
    apiKey: key,
    retryPolicy: { baseDelayMs: 5, maxDelayMs: 50 },
  });
  try {
    const items: Obj[] = [];
    for await (const item of client.listAll<Obj>(path, listKey)) items.push(item);
    return items;
  } finally {
    await client.close();
  }
}

export function markerOf(obj: Obj): { owner: string; key: string } | undefined {
  try {
    const m = JSON.parse(String(obj['metadata'])) as { accord?: { owner: string; key: string } };
    return m.accord;
  } catch {
    return undefined;
  }
}

export const SEED = new URL('../../examples/seed.yaml', import.meta.url).pathname;
export const OFFICE = 'ipp_2demoOffice0000000000000000';
export const VPN = 'ipp_2demoVpn0000000000000000000';
export const HOST_CA = 'sshca_2demoHostCA0000000000000000';
export const HOST_KEY =
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAqyCaC+1UsnHKNidb2yTijEjBjrvJmsbhSJNJ20klEM host@example.com';

/** A desired-state file: `hosts` SSH host certificates plus the given IP restrictions, as YAML. */
export function accordFile(
  owner: string,
  hosts: readonly string[],
  restrictions: Record<string, { type: string; enforced?: boolean; policies?: string[] }> = {},
): string {
  const lines = ['version: 1', `owner: ${owner}`];
  const ipr = Object.entries(restrictions);
  if (ipr.length > 0) {
    lines.push('ip_restrictions:');
    for (const [key, r] of ipr) {
      lines.push(
        `  ${key}:`,
        `    type: ${r.type}`,
        `    enforced: ${r.enforced ?? true}`,
        `    ip_policies: [${(r.policies ?? [OFFICE]).join(', ')}]`,
      );
    }
  }
  if (hosts.length > 0) {
    lines.push('ssh_host_certificates:');
    for (const h of hosts) {
      lines.push(
        `  ${h}:`,
        `    ssh_certificate_authority_id: ${HOST_CA}`,
        `    public_key: ${HOST_KEY}`,
        `    principals: [${h}.example.com]`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

/** This owner's objects by key; fails the caller's expectations through duplicates showing up as arrays > 1. */
export function byKey(objects: readonly Obj[], owner: string): Map<string, Obj[]> {
  const map = new Map<string, Obj[]>();
  for (const o of objects) {
    const m = markerOf(o);
    if (m?.owner !== owner) continue;
    const list = map.get(m.key);
    if (list) list.push(o);
    else map.set(m.key, [o]);
  }
  return map;
}
