import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import {
  generateAccordFileTypes,
  generateAccordFileValidator,
  generatePlanValidator,
  OUTPUT_FILE,
  PLAN_VALIDATOR_FILE,
  VALIDATOR_FILE,
} from '../../scripts/gen-types.mjs';

it('src/config/generated/accord-file.ts matches schemas/accord.schema.json (run npm run gen:types)', async () => {
  expect(readFileSync(OUTPUT_FILE, 'utf8')).toBe(await generateAccordFileTypes());
});

it('src/config/generated/accord-validator.ts matches schemas/accord.schema.json (run npm run gen:types)', () => {
  expect(readFileSync(VALIDATOR_FILE, 'utf8')).toBe(generateAccordFileValidator());
});

it('src/apply/generated/plan-validator.ts matches schemas/plan.schema.json (run npm run gen:types)', () => {
  expect(readFileSync(PLAN_VALIDATOR_FILE, 'utf8')).toBe(generatePlanValidator());
});
