import { parseArgs, type ParseArgsConfig } from "node:util";

type Values<T extends ParseArgsConfig> = ReturnType<typeof parseArgs<T>>["values"];

/**
 * node:util parseArgs with our CLIs' conventions: a bad option prints the message and the usage and
 * yields exit code 2; `--help` prints the usage and yields 0. Otherwise the parsed values.
 */
export function parseCommandLine<const T extends ParseArgsConfig>(config: T, usage: string): Values<T> | number {
  let values: Values<T>;
  try {
    ({ values } = parseArgs(config));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${usage}\n`);
    return 2;
  }
  if ((values as { help?: boolean }).help) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  return values;
}
