import { AuthError } from "../errors.ts";

export interface PasswordPolicy {
  /** PASSWORD_MIN_LENGTH, in characters (code points). */
  readonly minLength: number;
  /** PASSWORD_REQUIRED_CHARACTERS: the password needs at least one character of each set. */
  readonly requiredCharacters: readonly string[];
  /**
   * PASSWORD_HIBP_FAIL_CLOSED: a password is refused when the leaked-password service cannot be asked, rather than
   * passing unchecked (with PASSWORD_HIBP_ENABLED).
   */
  readonly pwnedFailClosed: boolean;
}

/** What the length and character rules read; the leaked-password check is the flows' (services/password-strength.ts). */
type StrengthRules = Pick<PasswordPolicy, "minLength" | "requiredCharacters">;

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

/** Why a password is weak, as GoTrue's `weak_password.reasons` says it. */
type WeakPasswordReason = "length" | "characters" | "pwned";

/** One rule a password fails, with the sentence the answer's message gives for it. */
export interface Weakness {
  readonly reason: WeakPasswordReason;
  readonly sentence: string;
}

/**
 * Whether the password can be verified exactly as received. A lone surrogate has no UTF-8 encoding: hashers replace
 * it, and different passwords would then verify alike.
 */
export function isVerifiablePassword(password: string): boolean {
  return password.isWellFormed();
}

/** Throws validation_failed for an over-long or unencodable password, weak_password (with reasons) for one below the policy. */
export function assertPasswordAcceptable(password: string, policy: StrengthRules): void {
  assertWeakPassword(weaknessesOf(password, policy));
}

/** Throws validation_failed for an over-long or unencodable password; else the rules it fails, in GoTrue's order. */
export function weaknessesOf(password: string, policy: StrengthRules): Weakness[] {
  if (!isVerifiablePassword(password)) {
    throw new AuthError("validation_failed", "Password must be valid Unicode text (it contains an unpaired surrogate)");
  }
  const characters = [...password];
  if (characters.length > MAX_PASSWORD_LENGTH) {
    throw new AuthError("validation_failed", `Password cannot be longer than ${MAX_PASSWORD_LENGTH} characters`);
  }
  const weaknesses: Weakness[] = [];
  if (characters.length < policy.minLength) {
    weaknesses.push({ reason: "length", sentence: `Password should be at least ${policy.minLength} characters.` });
  }
  const missesASet = policy.requiredCharacters.some((set) => !characters.some((char) => set.includes(char)));
  if (missesASet) {
    const sets = policy.requiredCharacters.join(", ");
    weaknesses.push({
      reason: "characters",
      sentence: `Password should contain at least one character of each: ${sets}.`,
    });
  }
  return weaknesses;
}

/** Throws weak_password with every reason and sentence, in order, when there is any. */
export function assertWeakPassword(weaknesses: readonly Weakness[]): void {
  if (weaknesses.length === 0) return;
  const reasons = weaknesses.map((weakness) => weakness.reason);
  const message = weaknesses.map((weakness) => weakness.sentence).join(" ");
  throw new AuthError("weak_password", message, { details: { reasons } });
}
