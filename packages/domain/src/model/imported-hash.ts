import { AuthError } from "../errors.ts";

/** Costs up to 14 (about a second a check): beyond, every wrong guess would hold a hashing thread for minutes. */
const BCRYPT = /^\$2[aby]\$(0[4-9]|1[0-4])\$[./A-Za-z0-9]{53}$/;
const ARGON2 = /^\$argon2id?\$v=19\$m=(\d{1,8}),t=(\d{1,3}),p=(\d{1,3})\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/;

/**
 * Bounds on imported argon2 parameters. security: every wrong guess at an account verifies against its hash, on
 * the same few hashing threads every sign-in needs, so an imported hash may cost at most a few times our own
 * (19 MiB, 2 passes): 128 MiB at most, and 256 MiB·passes of memory times iterations at most (about 130 ms). That
 * admits the usual defaults (Django, PHP, Bitwarden, node-argon2, Spring, Keycloak) and refuses the likes of
 * GoTrue's own bounds, 1 GiB and 20 passes, where one guess took seconds and a GiB.
 */
const ARGON2_MAX = { memoryKiB: 128 * 1024, memoryPassesKiB: 256 * 1024, parallelism: 16 };

/**
 * A password hash brought from another system (`password_hash` on admin create): bcrypt or argon2 (PHC string,
 * version 19), the formats the hasher verifies. Anything else is refused rather than stored unusable.
 */
export function assertImportableHash(hash: string): void {
  if (BCRYPT.test(hash)) return;
  const argon2 = ARGON2.exec(hash);
  if (argon2) {
    const [memoryKiB, iterations, parallelism] = argon2.slice(1).map(Number) as [number, number, number];
    const bounded =
      memoryKiB <= ARGON2_MAX.memoryKiB &&
      iterations >= 1 &&
      memoryKiB * iterations <= ARGON2_MAX.memoryPassesKiB &&
      parallelism >= 1 &&
      parallelism <= ARGON2_MAX.parallelism;
    if (bounded) return;
    const bounds = "m=131072 (128 MiB), m × t up to 262144 and p up to 16";
    const message = `Invalid password hash: argon2 hashes are accepted up to ${bounds}; import the user without it, or rehash with lower costs`;
    throw new AuthError("validation_failed", message);
  }
  throw new AuthError(
    "validation_failed",
    "Invalid password hash: only bcrypt (cost 4 to 14) and argon2 (v=19, bounded) hashes are accepted",
  );
}
