import { randomBytes } from "node:crypto";
import { availableParallelism } from "node:os";
import type { PasswordHasher, PasswordVerification } from "@latchkey/domain";
import { hash, parseOptions, verify } from "@node-rs/argon2";
import { verify as verifyBcrypt } from "@node-rs/bcrypt";
import pLimit from "p-limit";

export interface Argon2Parameters {
  /** KiB per hash. */
  readonly memoryCost: number;
  readonly timeCost: number;
  readonly parallelism: number;
}

/** OWASP's recommended argon2id setting: 19 MiB, 2 passes, 1 lane. */
export const recommendedArgon2: Argon2Parameters = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

// @node-rs/argon2's Algorithm is a const enum, which isolated modules cannot read; 2 is Argon2id.
const ARGON2ID = 2;
const BCRYPT = /^\$2[aby]\$\d{2}\$/;

/**
 * argon2id for every new hash. Imported hashes (bcrypt, argon2i, argon2id with other parameters) still verify and
 * ask to be re-hashed, so users move to current parameters at their next sign-in.
 *
 * Hashing runs on libuv's thread pool, off the event loop, at most `concurrency` at a time (one per core by
 * default); the rest wait their turn. More at once would not finish sooner: they would share the same cores, each
 * holding its 19 MiB, and leave less CPU to the event loop that answers everything else.
 */
export function createArgon2PasswordHasher(
  parameters: Argon2Parameters = recommendedArgon2,
  concurrency: number = availableParallelism(),
): PasswordHasher {
  const options = { ...parameters, algorithm: ARGON2ID };
  const bounded = pLimit(concurrency);
  // security: verified against when the user does not exist, so that case costs what a wrong password costs.
  const decoy = hash(randomBytes(32), options);

  const isCurrent = (stored: string) => {
    const used = parseOptions(stored);
    return (
      used.algorithm === ARGON2ID &&
      used.memoryCost === parameters.memoryCost &&
      used.timeCost === parameters.timeCost &&
      used.parallelism === parameters.parallelism
    );
  };

  return {
    hash: (password) => bounded(() => hash(password, options)),

    async verify(stored, password): Promise<PasswordVerification> {
      try {
        if (stored.startsWith("$argon2")) {
          const ok = await bounded(() => verify(stored, password));
          return { ok, needsRehash: ok && !isCurrent(stored) };
        }
        if (BCRYPT.test(stored)) {
          const ok = await bounded(() => verifyBcrypt(password, stored));
          return { ok, needsRehash: ok };
        }
      } catch {
        // A malformed stored hash verifies nothing.
      }
      return { ok: false, needsRehash: false };
    },

    async verifyNothing(password) {
      const against = await decoy;
      await bounded(() => verify(against, password));
    },
  };
}
