import type { Deps } from "../../deps.ts";
import { type MeasuredWork, millisecondsSince, seedDurations } from "../../services/abuse/timing.ts";
import { newAccount } from "../../services/accounts/new-account.ts";
import { recordAudit } from "../../services/audit.ts";
import { enqueueMessage } from "../../services/delivery/enqueue.ts";
import { issueToken } from "../../services/tokens/issue-token.ts";

/** Rounds of measurement; the median is kept, as the first round also pays for cold caches and connections. */
const ROUNDS = 3;

class RolledBack extends Error {}

/**
 * Measures what a password hash and a signup's write take here, and starts the timing estimates from them (see
 * timing.ts). The write is a real one (an account, its confirmation token, its mail in the outbox, an audit entry)
 * in a transaction that is rolled back, so it leaves nothing behind and sends nothing.
 */
export async function calibrateTimings(deps: Deps): Promise<MeasuredWork> {
  const hashes: number[] = [];
  const writes: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let started = deps.clock.now();
    await deps.hasher.hash(deps.random.token(16));
    hashes.push(millisecondsSince(deps, started));
    started = deps.clock.now();
    await rolledBackWrite(deps);
    writes.push(millisecondsSince(deps, started));
  }
  const measured = { hashMs: median(hashes), writeMs: median(writes) };
  seedDurations(deps, measured);
  return measured;
}

async function rolledBackWrite(deps: Deps): Promise<void> {
  const address = `timing-${deps.random.uuid()}@calibration.invalid`;
  try {
    await deps.tx.run(async (stores) => {
      const user = newAccount(deps, { contact: { provider: "email", address }, passwordHash: null });
      await stores.users.insert(user);
      const issued = await issueToken(deps, stores, { user, kind: "confirmation", channel: "email", address });
      const link = { linkType: "signup", linkToken: issued.linkToken!, otp: issued.otp, redirectTo: "" } as const;
      const email = { kind: "confirmation", to: address, ...link, data: {} } as const;
      const message = { channel: "email", email, userId: user.id } as const;
      await enqueueMessage(deps, stores, message, { expiresAt: issued.expiresAt });
      const context = { ip: null, userAgent: null };
      await recordAudit(deps, stores, { action: "user_confirmation_requested", actor: user, context });
      throw new RolledBack();
    });
  } catch (error) {
    if (!(error instanceof RolledBack)) throw error;
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
