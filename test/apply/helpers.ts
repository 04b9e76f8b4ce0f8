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
