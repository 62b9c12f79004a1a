import { parseArgs } from "node:util";
import {
  ASYMMETRIC_ALGORITHMS,
  type AsymmetricAlgorithm,
  DEFAULT_KEY_ALGORITHM,
  KeyRingError,
  newKeyRing,
  withNewKey,
  withoutKey,
  withSigner,
} from "@latchkey/adapters-crypto";
import { ConfigError, type ConfigSources, loadClientKeysConfig } from "../config/index.ts";
import { clientKeys, clientKeysText } from "./client-keys.ts";
import { parseProblem, usageLine } from "./usage-errors.ts";

/** What `latchkey keys …` printed, or why it could not: the exit code says which. */
export interface CommandResult {
  readonly out?: string;
  readonly error?: string;
  readonly exitCode: number;
}

/** A wrong call: one line, pointing at `latchkey keys --help` (cli/help.ts). */
const usage = (problem: string): CommandResult => ({ error: usageLine(problem, "keys"), exitCode: 2 });

/**
 * Without arguments, the keys a client needs (client-keys.ts), for the configuration in `sources`. Else the key
 * ring commands of a rotation (README, "Signing keys"): generate a ring, add a key that only verifies, make it the
 * signer, remove the old one. Each prints the new JWT_KEYS value and changes nothing else.
 */
export async function keysCommand(args: readonly string[], sources: ConfigSources): Promise<CommandResult> {
  if (args.length === 0) return printClientKeys(sources);
  return keyRingCommand(args, sources.env);
}

async function printClientKeys(sources: ConfigSources): Promise<CommandResult> {
  try {
    return { out: clientKeysText(await clientKeys(loadClientKeysConfig(sources))), exitCode: 0 };
  } catch (error) {
    if (error instanceof ConfigError) return { error: error.message, exitCode: 1 };
    throw error;
  }
}

export function keyRingCommand(args: readonly string[], env: ConfigSources["env"]): CommandResult {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    return usage(parseProblem(error, "keys"));
  }
  const { positionals, values } = parsed;
  const [action, kid, ...extra] = positionals;
  const alg = values.alg ?? DEFAULT_KEY_ALGORITHM;
  if (!(ASYMMETRIC_ALGORITHMS as readonly string[]).includes(alg)) {
    return usage(`--alg must be one of ${ASYMMETRIC_ALGORITHMS.join(", ")}`);
  }
  const ring = values.to ?? values.in ?? env["AUTH_JWT_KEYS"] ?? env["GOTRUE_JWT_KEYS"];
  if (action === undefined || !["generate", "add", "use", "remove"].includes(action)) {
    return usage(action === undefined ? "which keys command?" : `unknown keys command ${JSON.stringify(action)}`);
  }
  const needsKid = action === "use" || action === "remove";
  if (extra.length > 0 || (needsKid ? kid === undefined : kid !== undefined)) return usage("unexpected arguments");
  if (action !== "generate" && ring === undefined) return usage("no ring: give --to or --in, or set AUTH_JWT_KEYS");
  try {
    switch (action) {
      case "generate":
        return { out: newKeyRing(alg as AsymmetricAlgorithm), exitCode: 0 };
      case "add":
        return { out: withNewKey(ring!, alg as AsymmetricAlgorithm), exitCode: 0 };
      case "use":
        return { out: withSigner(ring!, kid!), exitCode: 0 };
      default:
        return { out: withoutKey(ring!, kid!), exitCode: 0 };
    }
  } catch (error) {
    const problem =
      error instanceof KeyRingError ? `the ring is not valid: ${error.message}` : (error as Error).message;
    return { error: problem, exitCode: 1 };
  }
}

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    options: { alg: { type: "string" }, to: { type: "string" }, in: { type: "string" } },
  });
}
