// A better-sqlite3 native module that does not load is reported as what it is, with what to run, and
// not as a problem of --data. (.ci/run also starts `accord serve` on another Node.js before rebuilding,
// and checks the same message from the process.)
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/package-files.js';
import {
  DataFileError,
  NativeModuleError,
  nativeModuleError,
  nativeModuleHome,
  startServer,
} from '../../src/server/index.js';
import { ROOT } from '../support/server.js';

const require = createRequire(join(ROOT, 'node_modules', 'better-sqlite3', 'package.json'));

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

const advice = `Run \`npm rebuild better-sqlite3\` in ${ROOT} with this Node.js, then start accord serve again.`;

describe('where npm rebuild must run', () => {
  it('is the directory whose node_modules holds better-sqlite3, for the install at hand', () => {
    const at = (path: string) => () => path;
    // A local install: npm hoists better-sqlite3 beside accord, into the project's node_modules.
    expect(nativeModuleHome(at('/proj/node_modules/better-sqlite3/package.json'))).toBe('/proj');
    // A global install: it stays in accord's own node_modules.
    expect(
      nativeModuleHome(at('/usr/lib/node_modules/accordctl/node_modules/better-sqlite3/package.json')),
    ).toBe('/usr/lib/node_modules/accordctl');
    // Left out of the install: accord's own directory.
    const missing = () => {
      throw Object.assign(new Error('not found'), { code: 'MODULE_NOT_FOUND' });
    };
    expect(nativeModuleHome(missing)).toBe(PACKAGE_ROOT);
    // This checkout: its own node_modules.
    expect(nativeModuleHome()).toBe(ROOT);
  });
});

describe('a native module that does not load', () => {
  it('built for another Node.js: says so, with both module versions', () => {
    // What Node.js 24 throws for a module built by Node.js 20 (its message, verbatim).
    const err = Object.assign(
      new Error(
        `The module '${ROOT}/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\n` +
          'was compiled against a different Node.js version using\nNODE_MODULE_VERSION 115. This version of ' +
          'Node.js requires\nNODE_MODULE_VERSION 137. Please try re-compiling or re-installing\nthe module ' +
          '(for instance, using `npm rebuild` or `npm install`).',
      ),
      { code: 'ERR_DLOPEN_FAILED' },
    );
    const native = nativeModuleError(err);
    expect(native).toBeInstanceOf(NativeModuleError);
    expect(native!.code).toBe('ACCORD_SERVE_NATIVE_MODULE');
    expect(native!.message).toBe(
      'accord serve stores its data with better-sqlite3, whose native module does not load in this Node.js ' +
        `${process.version}: it was built for another Node.js (NODE_MODULE_VERSION 115; this one needs 137). ` +
        advice,
    );
    expect(native!.message).not.toContain('--data');
  });

  it('a file that is no native module at all (a real dlopen failure)', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'accord-native-')), 'better_sqlite3.node');
    writeFileSync(file, 'not an ELF file');
    const err = thrown(() => process.dlopen({ exports: {} }, file));
    const native = nativeModuleError(err);
    expect(native).toBeInstanceOf(NativeModuleError);
    expect(native!.message).toMatch(/: it does not load \(.*better_sqlite3\.node.*\)\. Run `npm rebuild/);
    expect(native!.message.endsWith(advice)).toBe(true);
  });

  it('never built (bindings finds no file)', () => {
    const bindings = require('bindings') as (opts: { bindings: string; module_root: string }) => unknown;
    const err = thrown(() =>
      bindings({ bindings: 'better_sqlite3.node', module_root: mkdtempSync(join(tmpdir(), 'x-')) }),
    );
    expect(nativeModuleError(err)!.message).toContain(
      'it was never built (the install skipped or failed its build step). ' + advice,
    );
  });

  it('leaves other failures to --data', async () => {
    expect(nativeModuleError(new Error('unable to open database file'))).toBeUndefined();
    await expect(
      startServer({ port: 0, dataFile: join(tmpdir(), 'no-such-dir-accord', 'x.db') }),
    ).rejects.toThrow(DataFileError);
  });
});
