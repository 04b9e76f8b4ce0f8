import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { generateAccordFileTypes, OUTPUT_FILE } from '../../scripts/gen-types.mjs';

it('src/config/generated/accord-file.ts matches schemas/accord.schema.json (run npm run gen:types)', async () => {
  expect(readFileSync(OUTPUT_FILE, 'utf8')).toBe(await generateAccordFileTypes());
});
