import type { PasswordHasher } from "@latchkey/domain";
import type { Meter } from "@opentelemetry/api";

/** Password hashing takes tens of milliseconds by design; buckets in seconds around that. */
const HASH_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1, 2.5];

/** The algorithm of a stored hash, as GoTrue's `alg` attribute names it. */
function algorithmOf(hash: string): string {
  if (hash.startsWith("$argon2id$")) return "argon2id";
  if (hash.startsWith("$argon2i$")) return "argon2i";
  if (/^\$2[abxy]?\$/.test(hash)) return "bcrypt";
  return "unknown";
}

/**
 * The hasher, timed: `auth.password_hash.duration` (seconds) by `operation` (`hash`, `verify`, and `decoy` for the
 * verification of nobody's password that hides whether an account exists) and `alg`; and GoTrue's
 * `gotrue_generate_from_password_*` and `gotrue_compare_hash_and_password_*` counters (`_completed` of a
 * comparison with `match`), which show hashes started but never finished.
 */
export function timedHasher(hasher: PasswordHasher, meter: Meter): PasswordHasher {
  const duration = meter.createHistogram("auth.password_hash.duration", {
    unit: "s",
    description: "How long hashing or verifying a password took.",
    advice: { explicitBucketBoundaries: HASH_BUCKETS },
  });
  const counter = (name: string, description: string) => meter.createCounter(name, { description });
  const generateSubmitted = counter(
    "gotrue_generate_from_password_submitted",
    "Number of submitted GenerateFromPassword hashing attempts",
  );
  const generateCompleted = counter(
    "gotrue_generate_from_password_completed",
    "Number of completed GenerateFromPassword hashing attempts",
  );
  const compareSubmitted = counter(
    "gotrue_compare_hash_and_password_submitted",
    "Number of submitted CompareHashAndPassword hashing attempts",
  );
  const compareCompleted = counter(
    "gotrue_compare_hash_and_password_completed",
    "Number of completed CompareHashAndPassword hashing attempts",
  );
  const timed = async <T>(operation: string, alg: string, work: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await work();
    } finally {
      duration.record((performance.now() - started) / 1000, { operation, alg });
    }
  };

  return {
    async hash(password) {
      const alg = { alg: "argon2id" };
      generateSubmitted.add(1, alg);
      const hash = await timed("hash", alg.alg, () => hasher.hash(password));
      generateCompleted.add(1, { alg: algorithmOf(hash) });
      return hash;
    },
    async verify(hash, password) {
      const alg = { alg: algorithmOf(hash) };
      compareSubmitted.add(1, alg);
      const verification = await timed("verify", alg.alg, () => hasher.verify(hash, password));
      compareCompleted.add(1, { ...alg, match: verification.ok });
      return verification;
    },
    verifyNothing: (password) => timed("decoy", "argon2id", () => hasher.verifyNothing(password)),
  };
}
