import { createHash } from "node:crypto";
import type { PasswordHasher } from "../ports/password-hasher.ts";

const PREFIX = "fast-sha256$";
/** Hashes written with this prefix verify, but ask to be re-hashed: stands for an imported or outdated hash. */
export const OUTDATED_PREFIX = "outdated-sha256$";

const sha256 = (password: string) => createHash("sha256").update(password).digest("hex");

/** A fast stand-in for argon2id in unit tests; counts its work so tests can check that timing is equalised. */
export class FastPasswordHasher implements PasswordHasher {
  hashes = 0;
  verifications = 0;

  async hash(password: string): Promise<string> {
    this.hashes++;
    return PREFIX + sha256(password);
  }

  async verify(hash: string, password: string) {
    this.verifications++;
    if (hash.startsWith(OUTDATED_PREFIX)) return { ok: hash === OUTDATED_PREFIX + sha256(password), needsRehash: true };
    return { ok: hash === PREFIX + sha256(password), needsRehash: false };
  }

  async verifyNothing(_password: string): Promise<void> {
    this.verifications++;
  }
}
