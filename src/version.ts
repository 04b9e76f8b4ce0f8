import { readFileSync } from 'node:fs';
import { packageFile } from './package-files.js';

const pkg = JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as {
  name: string;
  version: string;
};

/** The name accord is published under on the npm registry (the command stays `accord`). */
export const PACKAGE_NAME: string = pkg.name;

export const VERSION: string = pkg.version;
