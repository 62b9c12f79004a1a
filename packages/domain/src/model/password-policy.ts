import { AuthError } from "../errors.ts";

export interface PasswordPolicy {
  /** PASSWORD_MIN_LENGTH, in characters (code points). */
  readonly minLength: number;
  /** PASSWORD_REQUIRED_CHARACTERS: the password needs at least one character of each set. */
  readonly requiredCharacters: readonly string[];
}

/**
 * Longest password accepted, in characters. GoTrue stops at bcrypt's 72 bytes; argon2id has no such limit and
 * passphrases deserve room, but hashing megabytes is a denial-of-service lever.
 */
export const MAX_PASSWORD_LENGTH = 1024;

/** Splits PASSWORD_REQUIRED_CHARACTERS on `:`; `\:` stands for a literal colon inside a set. */
export function parseRequiredCharacters(spec: string): string[] {
  const sets: string[] = [];
  let current = "";
  for (let i = 0; i < spec.length; i++) {
    const char = spec[i]!;
    if (char === "\\" && spec[i + 1] === ":") {
      current += ":";
      i++;
    } else if (char === ":") {
      sets.push(current);
      current = "";
    } else {
      current += char;
    }
  }
  sets.push(current);
  return sets.filter((set) => set !== "");
}

type WeakPasswordReason = "length" | "characters";

/**
 * Whether the password can be verified exactly as received. A lone surrogate has no UTF-8 encoding: hashers replace
 * it, and different passwords would then verify alike.
 */
export function isVerifiablePassword(password: string): boolean {
  return password.isWellFormed();
}

/** Throws validation_failed for an over-long or unencodable password, weak_password (with reasons) for one below the policy. */
export function assertPasswordAcceptable(password: string, policy: PasswordPolicy): void {
  if (!isVerifiablePassword(password)) {
    throw new AuthError("validation_failed", "Password must be valid Unicode text (it contains an unpaired surrogate)");
  }
  const characters = [...password];
  if (characters.length > MAX_PASSWORD_LENGTH) {
    throw new AuthError("validation_failed", `Password cannot be longer than ${MAX_PASSWORD_LENGTH} characters`);
  }
  const reasons: WeakPasswordReason[] = [];
  const sentences: string[] = [];
  if (characters.length < policy.minLength) {
    reasons.push("length");
    sentences.push(`Password should be at least ${policy.minLength} characters.`);
  }
  const missesASet = policy.requiredCharacters.some((set) => !characters.some((char) => set.includes(char)));
  if (missesASet) {
    reasons.push("characters");
    sentences.push(`Password should contain at least one character of each: ${policy.requiredCharacters.join(", ")}.`);
  }
  if (reasons.length > 0) {
    throw new AuthError("weak_password", sentences.join(" "), { details: { reasons } });
  }
}
