import { createInterface } from 'node:readline';
import { isatty } from 'node:tty';
import type { Secrets } from '../api/redact.js';

/** Where the CLI writes. Injected so that tests can run commands in-process and read what they print. */
export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether stdout is a terminal (colour, live counters, prompts). */
  isTty: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /**
   * Reads one line from the terminal; undefined when stdin is not a TTY. Rejects with PromptCancelled
   * on Ctrl-C, or on Ctrl-D (end of input) before a line.
   */
  prompt?: (question: string) => Promise<string>;
  /**
   * Calls `handler` once on the next Ctrl-C (SIGINT) instead of ending the process; returns a function
   * that stops listening. A second Ctrl-C then ends the process as usual.
   */
  onInterrupt?: (handler: () => void) => () => void;
  /**
   * The run's secrets (the API key, once read): stdout and stderr are redacted of them by `main`, and a
   * command that saves a file redacts it with `redacted` (src/cli/output.ts).
   */
  secrets?: Secrets;
  /** The time a plan is made at (default the system clock): tests inject it. */
  now?: () => Date;
}

export function processIo(): Io {
  return {
    stdout: closedQuietly(process.stdout),
    stderr: closedQuietly(process.stderr),
    isTty: Boolean(process.stdout.isTTY),
    env: process.env,
    cwd: process.cwd(),
    // isatty, not process.stdin.isTTY: that getter opens stdin as a stream, some ms of every start.
    ...(isatty(0) ? { prompt: askTerminal } : {}),
    onInterrupt: (handler) => {
      const listener = () => handler();
      process.once('SIGINT', listener);
      return () => process.off('SIGINT', listener);
    },
  };
}

/**
 * A writer to `stream` that a closed reader ends quietly (`accord validate | head -1`): the first EPIPE
 * stops its writing, and the command runs to its end as it would (an apply finishes what it started),
 * with no stack trace. Any other write error is thrown as before.
 */
export function closedQuietly(stream: NodeJS.WriteStream): (text: string) => void {
  let closed = false;
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    closed = true;
  });
  return (text) => {
    if (!closed) stream.write(text);
  };
}

/** The user left a prompt without answering: Ctrl-C (`interrupt`) or Ctrl-D / end of input (`eof`). */
export class PromptCancelled extends Error {
  override name = 'PromptCancelled';
  constructor(readonly by: 'interrupt' | 'eof') {
    super(by === 'interrupt' ? 'interrupted at the prompt' : 'no answer: end of input');
  }
}

/** Asks on stderr, so that stdout stays clean for --json. */
function askTerminal(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      fn();
      rl.close();
    };
    // In raw mode Ctrl-C is a key, not a signal: readline reports it here.
    rl.on('SIGINT', () => settle(() => reject(new PromptCancelled('interrupt'))));
    rl.on('close', () => settle(() => reject(new PromptCancelled('eof'))));
    rl.question(question, (answer) => settle(() => resolve(answer)));
  });
}
