import { parseArgs, type ParseArgsConfig } from "node:util";

type Parsed<T extends ParseArgsConfig> = ReturnType<typeof parseArgs<T>>;
type Values<T extends ParseArgsConfig> = Parsed<T>["values"];

/**
 * node:util parseArgs with our CLIs' conventions: a bad option prints the message and the usage and
 * yields exit code 2; `--help` prints the usage and yields 0. Otherwise the parsed options and operands.
 */
export function parseCommand<const T extends ParseArgsConfig>(config: T, usage: string): Parsed<T> | number {
  let parsed: Parsed<T>;
  try {
    parsed = parseArgs(config);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${usage}\n`);
    return 2;
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  return parsed;
}

/** parseCommand for CLIs that take options only: the parsed values, or the exit code. */
export function parseCommandLine<const T extends ParseArgsConfig>(config: T, usage: string): Values<T> | number {
  const parsed = parseCommand(config, usage);
  return typeof parsed === "number" ? parsed : parsed.values;
}
