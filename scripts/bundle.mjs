#!/usr/bin/env node
// Bundles the command line (dist/cli/main.js) and the library (dist/index.js), as tsc built them, into
// dist/bundle/: a few files in place of some 80 modules that Node would otherwise resolve, read and link
// one by one, a file system round trip each, on every run (some 150 ms of a command's start). What runs
// only on some commands (the planner, the service) stays in chunks loaded when used, shared by the two.
// yargs, pure ES modules read on every run, is bundled too; the other packages stay packages, loaded
// from node_modules as they ship (CommonJS, native code, or only loaded by some commands). The package
// ships dist/bundle/ and tsc's type declarations; tsc's JavaScript serves the tests and benches.
import { readFileSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const BUNDLED = ['yargs'];
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const external = Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies }).filter(
  (name) => !BUNDLED.includes(name),
);
// Every import of string-width but the shim's own is the shim (scripts/lazy-string-width.mjs).
const LAZY_STRING_WIDTH = new URL('./lazy-string-width.mjs', import.meta.url).pathname;
const lazyStringWidth = {
  name: 'lazy-string-width',
  setup(build) {
    build.onResolve({ filter: /^string-width$/ }, (args) =>
      args.importer === LAZY_STRING_WIDTH ? undefined : { path: LAZY_STRING_WIDTH },
    );
  },
};
// yargs looks for the package.json above the working directory (escalade's findUp, a directory read
// per level) only to guess a version for --version, which src/cli/main.ts always gives: in a large
// directory, or up to / where none is found, that is a command's start spent reading directories.
// Its findUp finds nothing in the bundle, so yargs' guess is "unknown", and is then replaced.
const noPackageSearch = {
  name: 'no-package-search',
  setup(build) {
    build.onResolve({ filter: /^escalade\/sync$/ }, () => ({
      path: 'escalade-sync',
      namespace: 'no-package-search',
    }));
    build.onLoad({ filter: /.*/, namespace: 'no-package-search' }, () => ({
      contents: 'export default function findUp() { return undefined; }',
      loader: 'js',
    }));
  },
};
const outdir = new URL('../dist/bundle/', import.meta.url).pathname;
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: {
    main: new URL('../dist/cli/main.js', import.meta.url).pathname,
    index: new URL('../dist/index.js', import.meta.url).pathname,
  },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22.12',
  external,
  sourcemap: 'linked',
  plugins: [lazyStringWidth, noPackageSearch],
  logLevel: 'warning',
});
