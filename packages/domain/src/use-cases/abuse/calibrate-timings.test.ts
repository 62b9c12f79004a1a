import { describe, expect, it } from "vitest";
import { SMS_SEND_GUESS_MS } from "../../services/abuse/timing.ts";
import { aUser } from "../../testing/builders.ts";
import { createTestAuth } from "../../testing/create-test-auth.ts";
import { context } from "../../testing/fails-with.ts";
import { FastPasswordHasher } from "../../testing/fast-password-hasher.ts";
import { createInMemoryStores } from "../../testing/in-memory-stores.ts";
import { TestClock } from "../../testing/test-clock.ts";

const HASH_MS = 40;
const WRITE_MS = 9;

/** The domain on a clock that a hash moves by HASH_MS and a transaction by WRITE_MS, as real ones take time. */
function timedAuth() {
  const clock = new TestClock();
  const hasher = new FastPasswordHasher();
  const hash = hasher.hash.bind(hasher);
  hasher.hash = async (password) => {
    clock.advance({ milliseconds: HASH_MS });
    return hash(password);
  };
  const { stores, tx } = createInMemoryStores();
  const timedTx = {
    run: <T>(work: Parameters<typeof tx.run<T>>[0]) => {
      clock.advance({ milliseconds: WRITE_MS });
      return tx.run(work);
    },
  };
  const testAuth = createTestAuth({
    ports: { clock, hasher, stores, tx: timedTx },
    policy: { signup: { phoneEnabled: true } },
  });
  const took = async (work: () => Promise<unknown>) => {
    const started = clock.now().getTime();
    await work();
    return clock.now().getTime() - started;
  };
  return { ...testAuth, clock, took };
}

describe("timing pads after a start", () => {
  it("start from the measured cost of a hash and a write, not from nothing", async () => {
    const fresh = timedAuth();
    expect(await fresh.took(() => fresh.auth.recoverPassword({ email: "nobody@example.com", context }))).toBe(0);

    const { auth, took, stores } = timedAuth();
    await auth.calibrateTimings();
    expect(await took(() => auth.recoverPassword({ email: "nobody@example.com", context }))).toBe(WRITE_MS);
    expect(await took(() => auth.resend({ type: "sms", phone: "+15550107777", context }))).toBe(
      WRITE_MS + SMS_SEND_GUESS_MS,
    );
    // A duplicate signup hashes as a real one does, and is padded to a real one's hash and write.
    await stores.users.insert(aUser({ email: "taken@example.com" }));
    expect(await took(() => auth.signUp({ email: "taken@example.com", password: "long enough", context }))).toBe(
      HASH_MS + WRITE_MS,
    );
  });

  it("measure with writes that leave nothing behind and send nothing", async () => {
    const { auth, stores, emails, ports } = timedAuth();
    await auth.calibrateTimings();
    expect((await stores.users.list({ page: 1, perPage: 10, order: "asc" })).total).toBe(0);
    expect((await stores.auditLog.list({ page: 1, perPage: 10 })).total).toBe(0);
    expect(await emails()).toEqual([]);
    expect(await ports.rateLimiter.peek("email_sent", 1)).toEqual({ allowed: true });
  });
});
