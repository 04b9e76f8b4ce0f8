// Shared by the CI tests: a work directory holding the example file, a shell that finds the built CLI
// as `accord` on PATH (and logs each call's exit code), and shell-script extraction from workflow files.
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ProcessRun, runProcess } from '../support/cli.js';
import { CLI, ROOT } from '../support/server.js';

/** A fresh directory laid out like a user's repository: accord.yaml, certs/, keys/, and bin/accord. */
export function makeWorkdir(prefix: string): { dir: string; log: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), `accord-${prefix}-`));
  cpSync(join(ROOT, 'examples', 'accord.yaml'), join(dir, 'accord.yaml'));
  cpSync(join(ROOT, 'examples', 'certs'), join(dir, 'certs'), { recursive: true });
  cpSync(join(ROOT, 'examples', 'keys'), join(dir, 'keys'), { recursive: true });
  cpSync(join(ROOT, 'examples', 'cidrs'), join(dir, 'cidrs'), { recursive: true });
  const bin = join(dir, '.bin');
  mkdirSync(bin);
  const log = join(dir, '.accord-calls.log');
  writeFileSync(
    join(bin, 'accord'),
    `#!/bin/sh\n"${process.execPath}" "${CLI}" "$@"\ncode=$?\necho "$code accord $*" >> "${log}"\nexit $code\n`,
  );
  chmodSync(join(bin, 'accord'), 0o755);
  writeFileSync(log, '');
  return { dir, log, path: `${bin}:${process.env.PATH ?? ''}` };
}

/** The `accord ...` calls made so far, with their exit codes, in order. */
export function calls(log: string): { code: number; line: string }[] {
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const at = l.indexOf(' ');
      return { code: Number(l.slice(0, at)), line: l.slice(at + 1) };
    });
}

/** Runs a script with bash -e (as both CI systems do), asynchronously: the server shares this process. */
export function sh(
  script: string,
  cwd: string,
  env: Record<string, string>,
  stdin?: string,
): Promise<ProcessRun> {
  return runProcess('bash', ['-e', '-c', script], { cwd, env }, stdin);
}

/** Whether a shell script runs the accord CLI (not `npm install accord@...`). */
export function runsAccord(script: string): boolean {
  return /(^|[\s;&|(]|then\s|else\s)accord\s/m.test(stripHeredocs(script));
}

/** The script without its heredoc bodies (inline programs for node, not shell). */
export function stripHeredocs(script: string): string {
  return script.replace(/<<'?(\w+)'?\n[\s\S]*?\n\s*\1\s*(\n|$)/g, '\n');
}

/** The body of the first heredoc of a script (the inline node program). */
export function heredoc(script: string): string {
  const m = /<<'?(\w+)'?\n([\s\S]*?)\n\s*\1\s*(\n|$)/.exec(script);
  if (!m?.[2]) throw new Error(`no heredoc in:\n${script}`);
  return m[2];
}
