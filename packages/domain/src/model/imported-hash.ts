import { AuthError } from "../errors.ts";

/** Costs up to 14 (about a second a check): beyond, every wrong guess would hold a hashing thread for minutes. */
const BCRYPT = /^\$2[aby]\$(0[4-9]|1[0-4])\$[./A-Za-z0-9]{53}$/;
const ARGON2 = /^\$argon2id?\$v=19\$m=(\d{1,8}),t=(\d{1,3}),p=(\d{1,3})\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/;

/** Bounds on imported argon2 parameters (GoTrue's): verifying must not cost more than a GiB or a long while. */
const ARGON2_MAX = { memoryKiB: 1024 * 1024, iterations: 20, parallelism: 16 };

/**
 * A password hash brought from another system (`password_hash` on admin create): bcrypt or argon2 (PHC string,
 * version 19), the formats the hasher verifies. Anything else is refused rather than stored unusable.
 */
export function assertImportableHash(hash: string): void {
  if (BCRYPT.test(hash)) return;
  const argon2 = ARGON2.exec(hash);
  if (argon2) {
    const [memoryKiB, iterations, parallelism] = argon2.slice(1).map(Number) as [number, number, number];
    if (memoryKiB <= ARGON2_MAX.memoryKiB && iterations >= 1 && iterations <= ARGON2_MAX.iterations && parallelism >= 1 && parallelism <= ARGON2_MAX.parallelism) {
      return;
    }
  }
  throw new AuthError("validation_failed", "Invalid password hash: only bcrypt (cost 4 to 14) and argon2 (v=19, bounded) hashes are accepted");
}
