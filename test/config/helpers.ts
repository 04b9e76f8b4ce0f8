import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { ConfigError, loadDesiredState, type Problem } from '../../src/config/index.js';
import { CA_FALSE, CA_TRUE, makeCaPemSync } from '../support/ca.js';

export const REPO = join(import.meta.dirname, '..', '..');
export const EXAMPLE_CA = readFileSync(join(REPO, 'examples/certs/internal-root.pem'), 'utf8');
export const ED25519 = readFileSync(join(REPO, 'examples/keys/ssh_host_ed25519_key.pub'), 'utf8').trim();
export const ECDSA = readFileSync(join(REPO, 'examples/keys/ssh_host_ecdsa_key.pub'), 'utf8').trim();
export const RSA = readFileSync(join(REPO, 'examples/keys/ssh_host_rsa_key.pub'), 'utf8').trim();

export const IPP = 'ipp_2demoOffice0000000000000000';
export const IPP2 = 'ipp_2demoVpn0000000000000000000';
export const SSHCA = 'sshca_2demoHostCA0000000000000000';

/** Joins lines into a YAML text (line N of the file is argument N). */
export const y = (...lines: string[]) => `${lines.join('\n')}\n`;

/** A scratch directory holding accord.yaml and whatever files a case needs. */
export class Scratch {
  readonly dir: string;
  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'accord-config-'));
  }
  write(name: string, content: string | Buffer): string {
    const path = join(this.dir, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
    return path;
  }
  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Loads `text` (or the accord.yaml already there) in `scratch` and returns the problems (fails when the file loads). */
export async function problemsOf(scratch: Scratch, text?: string | Buffer): Promise<Problem[]> {
  if (text !== undefined) scratch.write('accord.yaml', text);
  try {
    await loadDesiredState('accord.yaml', scratch.dir);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError, but the file loaded');
}

export interface Expected {
  line: number;
  col: number;
  path?: string;
  message: RegExp;
}

export function expectProblem(problems: Problem[], want: Expected): void {
  const match = problems.find(
    (p) =>
      p.line === want.line &&
      p.col === want.col &&
      (want.path === undefined || p.path === want.path) &&
      want.message.test(p.message),
  );
  if (!match) {
    expect.fail(
      `no problem ${want.line}:${want.col} ${want.path ?? ''} ${want.message}; got:\n${problems
        .map((p) => `${p.line}:${p.col} ${p.path}: ${p.message}`)
        .join('\n')}`,
    );
  }
  expect(match.file).toBe('accord.yaml');
}

/** Certificates made at test time (no private key is committed). */
export function makeCertificates(dir: string): { ca2: string; leaf: string } {
  const pem = (name: string, extra: readonly string[]) =>
    readFileSync(makeCaPemSync(dir, name, { extra }), 'utf8');
  return { ca2: pem('second-ca', CA_TRUE), leaf: pem('leaf', CA_FALSE) };
}

export function privateKeyPem(): string {
  const { privateKey } = generateKeyPairSync('ed25519');
  return privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
}

/** Indents a multi-line value for a YAML block scalar (`key: |`). */
export function block(text: string, indent: number): string {
  return text
    .trimEnd()
    .split('\n')
    .map((l) => `${' '.repeat(indent)}${l}`)
    .join('\n');
}
