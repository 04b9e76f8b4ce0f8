// `ca_pem_file` / `public_key_file`: paths relative to the YAML file that may not leave its directory.
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep, win32 } from 'node:path';

/** Referenced files are small (a PEM, a .pub line); anything larger is a mistake. */
export const MAX_REFERENCED_FILE_BYTES = 1024 * 1024;

const UTF8 = new TextDecoder('utf-8', { fatal: true });

export type ReferencedFile = { ok: true; text: string; path: string } | { ok: false; message: string };

/**
 * Reads `name` relative to `baseDir` (callers reading many files pass the directory's real path, computed
 * once). Synchronous: a file names at most a few hundred small files, and sync reads cost far less. Messages name the path as written and never quote the content
 * (it could be a private key put there by mistake).
 */
export function readReferencedFile(
  baseDir: string,
  name: string,
  realBaseDir: () => string = () => realpathSync.native(baseDir),
  maxBytes: number = MAX_REFERENCED_FILE_BYTES,
): ReferencedFile {
  const fail = (message: string): ReferencedFile => ({ ok: false, message });
  const shown = JSON.stringify(name);
  if (name.includes('\0')) return fail(`${shown} is not a valid path`);
  if (isAbsolute(name) || win32.isAbsolute(name) || name.startsWith('~')) {
    return fail(`${shown} is absolute; write a path relative to the YAML file's directory`);
  }
  if (name.split(/[\\/]/).includes('..')) {
    return fail(`${shown} contains ".."; the file must be inside the YAML file's directory`);
  }
  const target = resolve(baseDir, name);
  let realBase: string;
  let realTarget: string;
  try {
    realBase = realBaseDir();
    realTarget = realpathSync.native(target);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      return fail(`file ${shown} not found (looked for ${target})`);
    }
    return fail(`cannot open ${shown} (${code ?? 'unknown error'})`);
  }
  const inside = relative(realBase, realTarget);
  // `inside === ''` is the directory itself (`./`): not a link out, and refused below as no regular file.
  if (inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside)) {
    return fail(
      `${shown} leads outside the YAML file's directory (through a symbolic link); copy the file in`,
    );
  }
  try {
    const info = statSync(realTarget);
    if (!info.isFile())
      return fail(
        `${shown} is not a regular file (a directory?); name the file itself, relative to the YAML file`,
      );
    if (info.size > maxBytes) {
      return fail(`${shown} is ${info.size} bytes; the limit is ${maxBytes}`);
    }
    const bytes = readFileSync(realTarget);
    const text = UTF8.decode(bytes);
    return { ok: true, text, path: realTarget };
  } catch (err) {
    if (err instanceof TypeError) return fail(notText(shown, realTarget));
    const code = (err as NodeJS.ErrnoException).code;
    return fail(`cannot read ${shown} (${code ?? 'unknown error'})`);
  }
}

/**
 * Why a file is not text: a certificate in DER (binary ASN.1, which starts with a SEQUENCE, 0x30) is
 * said as such, with the command that writes it as PEM.
 */
function notText(shown: string, path: string): string {
  let first = -1;
  try {
    first = readFileSync(path).subarray(0, 1)[0] ?? -1;
  } catch {
    // Said as not text below.
  }
  if (first !== 0x30) return `${shown} is not UTF-8 text`;
  // Where `shown` is, relative to the YAML file: the command runs in its directory.
  const pem = `${shown.replace(/^"|"$/g, '').replace(/\.(der|cer|crt)$/i, '')}.pem`;
  return (
    `${shown} is binary (DER, not PEM); convert it with openssl x509 -inform DER -in ${shown} -out ${pem} ` +
    'and name the .pem file instead'
  );
}
