/**
 * The configuration cannot be used; `problems` lists every reason, one sentence each, naming the variable. `hints`
 * name variables that were set but not read, and what they were probably meant for: said with the problems, as a
 * required setting reported missing is often one set under another name.
 */
export class ConfigError extends Error {
  override readonly name = "ConfigError";

  constructor(
    readonly problems: readonly string[],
    heading = "Invalid configuration",
    readonly hints: readonly string[] = [],
  ) {
    super(`${heading}:\n${[...problems, ...hints].map((line) => `  ${line}`).join("\n")}`);
  }
}
