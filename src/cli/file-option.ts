// `--file`/`-f`, the desired-state files, as validate, plan, apply and drift declare it: repeatable, a
// directory standing for its *.yaml and *.yml files; without it, ACCORD_FILES, then accord.yaml
// (src/config/paths.ts).

export const desiredFileOption = {
  alias: 'f',
  type: 'string',
  array: true,
  nargs: 1,
  requiresArg: true,
  describe:
    'A desired-state file, or a directory of them (its *.yaml and *.yml files); repeatable. Default: $ACCORD_FILES (colon-separated), else accord.yaml',
} as const;
