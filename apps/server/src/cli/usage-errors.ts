/** The binary's commands, as `latchkey <command> --help` names them. */
const COMMANDS = ["serve", "migrate", "keys", "import", "config"] as const;
export type Command = (typeof COMMANDS)[number];

export function isCommand(name: string): name is Command {
  return (COMMANDS as readonly string[]).includes(name);
}

/** How a command is typed, in the pointer to its help. */
const TYPED: Readonly<Record<Command, string>> = {
  serve: "serve",
  migrate: "migrate",
  keys: "keys",
  import: "import gotrue",
  config: "config",
};

/** A wrong call, in one line, with where its help is: `latchkey: <problem>; see latchkey <command> --help`. */
export function usageLine(problem: string, command?: Command): string {
  const help = command === undefined ? "latchkey --help" : `latchkey ${TYPED[command]} --help`;
  return `latchkey: ${problem}; see ${help}`;
}

/** An argument a command that takes none was given. */
export function unexpectedArgument(argument: string, command: Command): string {
  return argument.startsWith("-")
    ? `unknown option ${argument} for ${command}`
    : `unexpected argument ${argument} for ${command}`;
}

/** What node:util's parseArgs refused, as a problem naming the option rather than its two-sentence message. */
export function parseProblem(error: unknown, command: Command): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = typeof error === "object" && error !== null && "code" in error ? error.code : undefined;
  const option = /'(-[^' ]*)/.exec(message)?.[1];
  if (option === undefined) return message;
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") return `unknown option ${option} for ${command}`;
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    return message.includes("argument missing") ? `${option} needs a value` : `${option} takes no value`;
  }
  return message;
}

/** Whether the arguments ask for help: `--help` or `-h` anywhere before a `--`. */
export function asksForHelp(args: readonly string[]): boolean {
  const options = args.includes("--") ? args.slice(0, args.indexOf("--")) : args;
  return options.some((argument) => argument === "--help" || argument === "-h");
}
