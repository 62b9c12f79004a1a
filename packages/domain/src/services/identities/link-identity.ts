import type { Deps, RequestContext } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import { verifiedAddresses } from "../../model/account-linking.ts";
import type { ProviderProfile } from "../../model/provider-profile.ts";
import { withProviders } from "../../model/user.ts";
import type { Stores } from "../../ports/stores.ts";
import { recordAudit } from "../audit.ts";
import { providerIdentity, providerIdentityData } from "./provider-identity.ts";
import { mailAddressConfirmation, notifyIdentity, type ProviderSignInOutcome } from "./provider-sign-in.ts";

/**
 * The end of GET /user/identities/authorize: the provider's identity joins the signed-in user who started it.
 * An identity some user already has is refused. A user without an email (an anonymous one) takes the provider's:
 * confirmed when the provider verified it, which makes the user a permanent one, else after a confirmation mail.
 */
export async function linkIdentityToUser(
  deps: Deps,
  stores: Stores,
  input: {
    readonly userId: string;
    readonly provider: string;
    readonly profile: ProviderProfile;
    readonly redirectTo: string;
    readonly context: RequestContext;
  },
): Promise<ProviderSignInOutcome> {
  const now = deps.clock.now();
  const { profile, provider } = input;
  const { email, identityData } = providerIdentityData(profile);
  {
    const user = await stores.users.findById(input.userId, { forUpdate: true });
    if (!user || user.deletedAt !== null) throw new AuthError("user_not_found", "Linking target user not found");
    const existing = await stores.identities.find(provider, profile.subject);
    if (existing) {
      throw new AuthError(
        "identity_already_exists",
        existing.userId === user.id ? "Identity is already linked" : "Identity is already linked to another user",
      );
    }
    const identity = providerIdentity({
      id: deps.random.uuid(),
      userId: user.id,
      provider,
      profile,
      identityData,
      now,
    });
    const identities = [...user.identities, identity];
    let linked = { ...user, identities, appMetadata: withProviders(user.appMetadata, identities), updatedAt: now };
    let unconfirmed: string | null = null;
    if (user.email === null && email !== null) {
      if (await stores.users.findByEmail(email)) {
        throw new AuthError("email_exists", "A user with this email address has already been registered");
      }
      const proven = verifiedAddresses(profile.emails, deps.policy.signup.emailAutoconfirm).includes(email);
      linked = proven
        ? { ...linked, email, emailConfirmedAt: now, isAnonymous: false }
        : { ...linked, email, confirmationSentAt: now };
      if (!proven) unconfirmed = email;
    }
    await stores.identities.save(identity);
    await stores.users.update(linked);
    await recordAudit(deps, stores, {
      action: "identity_linked",
      actor: linked,
      context: input.context,
      traits: { identity_id: identity.id, provider, provider_id: profile.subject },
    });
    // A confirmed address hears of it; one that waits for its confirmation has not been proven to be the user's.
    if (unconfirmed === null) {
      await notifyIdentity(deps, stores, { kind: "identity_linked", userId: linked.id, to: linked.email, provider });
    }
    if (unconfirmed !== null) {
      const claim = { address: unconfirmed, identityId: identity.id, redirectTo: input.redirectTo };
      await mailAddressConfirmation(deps, stores, linked, claim);
    }
    // The identity is linked and the mail on its way; the caller commits, then says the address waits.
    return unconfirmed === null ? { kind: "signed_in", user: linked } : { kind: "needs_verification", provider };
  }
}
