/** The configuration cannot be used; `problems` lists every reason, one sentence each, naming the variable. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";

  constructor(
    readonly problems: readonly string[],
    heading = "Invalid configuration",
  ) {
    super(`${heading}:\n${problems.map((problem) => `  ${problem}`).join("\n")}`);
  }
}
