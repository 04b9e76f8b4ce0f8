// Running the CLI in tests: in-process through `main` with a captured Io, or any program as a child
// process with its output collected.
import { spawn } from 'node:child_process';
import type { Io } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';

export interface Captured extends Io {
  out: string;
  err: string;
}

/** An Io that keeps what is printed; not a TTY. */
export function captureIo(env: Record<string, string> = {}, extra: Partial<Io> = {}): Captured {
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

export interface MainRun {
  code: number;
  out: string;
  err: string;
}

/** `main(args)` in-process with a captured Io. */
export async function runMain(
  args: string[],
  env: Record<string, string> = {},
  extra: Partial<Io> = {},
): Promise<MainRun> {
  const io = captureIo(env, extra);
  const code = await main(args, io);
  return { code, out: io.out, err: io.err };
}

export interface ProcessRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a process to its end and collects what it printed; never blocks this process's event loop. */
export function runProcess(
  command: string,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string | undefined> } = {},
  stdin?: string,
): Promise<ProcessRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, opts);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
    // A command that exits without reading its input closes the pipe: not an error of the run.
    child.stdin.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') reject(err);
    });
    child.stdin.end(stdin ?? '');
  });
}
