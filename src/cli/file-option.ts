// `--file`/`-f`, the desired-state file, as plan and validate declare it (apply's has no default: a
// saved plan may stand in its place).

export const desiredFileOption = {
  alias: 'f',
  type: 'string',
  default: 'accord.yaml',
  describe: 'The desired-state file',
  requiresArg: true,
} as const;
