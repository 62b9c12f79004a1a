import type { Deps, Principal, RequestContext } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import { type Identity, identityEmail } from "../../model/identity.ts";
import { type User, withProviders } from "../../model/user.ts";
import { isUuid } from "../../model/uuid.ts";
import { recordAudit } from "../../services/audit.ts";
import { notifyIdentity } from "../../services/identities/provider-sign-in.ts";
import { requireLinkingAllowed } from "./start-sign-in.ts";

export interface UnlinkIdentityInput {
  readonly principal: Principal;
  readonly identityId: string;
  readonly context: RequestContext;
}

/**
 * DELETE /user/identities/<id>: the signed-in user lets go of one of their identities, never the last. A phone
 * identity takes the phone with it; one whose address is the account's email takes the email (emailAfterUnlink).
 */
export async function unlinkIdentity(deps: Deps, input: UnlinkIdentityInput): Promise<void> {
  requireLinkingAllowed(deps, input.principal);
  if (!isUuid(input.identityId)) {
    throw new AuthError("validation_failed", "identity_id must be an UUID", { case: "malformed_id" });
  }
  const now = deps.clock.now();
  await deps.tx.run(async (stores) => {
    const user = await stores.users.findById(input.principal.user.id, { forUpdate: true });
    if (!user || user.deletedAt !== null) throw new AuthError("user_not_found", "User not found");
    if (user.identities.length <= 1) {
      throw new AuthError("single_identity_not_deletable", "User must have at least 1 identity after unlinking");
    }
    const identity = user.identities.find((each) => each.id === input.identityId);
    if (!identity) throw new AuthError("identity_not_found", "Identity doesn't exist");
    const left = user.identities.filter((each) => each.id !== identity.id);
    const changes: Partial<User> =
      identity.provider === "phone"
        ? { phone: null, phoneConfirmedAt: null }
        : emailAfterUnlink(user, identity, left, now);
    if (changes.email !== undefined && changes.email !== null && changes.email !== user.email) {
      const holder = await stores.users.findByEmail(changes.email);
      if (holder && holder.id !== user.id) {
        throw new AuthError("email_conflict_identity_not_deletable", "Unable to unlink identity due to email conflict");
      }
    }
    const updated = {
      ...user,
      ...changes,
      identities: left,
      appMetadata: withProviders(user.appMetadata, left),
      updatedAt: now,
    };
    await stores.identities.delete(user.id, identity.id);
    await stores.users.update(updated);
    await recordAudit(deps, stores, {
      action: "identity_unlinked",
      actor: updated,
      context: input.context,
      traits: { identity_id: identity.id, provider: identity.provider, provider_id: identity.providerId },
    });
    // To the address the account had: if it went with the identity, that is where its owner reads mail.
    await notifyIdentity(deps, stores, {
      kind: "identity_unlinked",
      userId: user.id,
      to: user.email,
      provider: identity.provider,
    });
  });
}

/**
 * The account's email once `unlinked` goes, and its confirmation. An identity whose address is not the account's
 * email changes nothing. One whose address is leaves the account an address only a provider verified for an
 * identity left: the same address, kept as it was; else the oldest such one, confirmed now by that provider; else
 * none. security: an address an identity merely claimed never becomes the account's, and a confirmation never
 * moves to another address (docs/compatibility.md, "Identity linking").
 */
function emailAfterUnlink(
  user: User,
  unlinked: Identity,
  left: readonly Identity[],
  now: Date,
): Partial<Pick<User, "email" | "emailConfirmedAt">> {
  if (user.email === null || identityEmail(unlinked) !== user.email) return {};
  const verified = [...left]
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
    .filter((identity) => identity.identityData["email_verified"] === true && identityEmail(identity) !== null);
  if (verified.some((identity) => identityEmail(identity) === user.email)) return {};
  const next = verified[0];
  return next ? { email: identityEmail(next), emailConfirmedAt: now } : { email: null, emailConfirmedAt: null };
}
