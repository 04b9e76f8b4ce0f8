/** Where the CLI writes. Injected so that tests can run commands in-process and read what they print. */
export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether stdout is a terminal (colour, live counters, prompts). */
  isTty: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Reads one line from the terminal; undefined when stdin is not a TTY. */
  prompt?: (question: string) => Promise<string>;
}

export function processIo(): Io {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    isTty: Boolean(process.stdout.isTTY),
    env: process.env,
    cwd: process.cwd(),
  };
}
