import type { Deps, RequestContext } from "../../deps.ts";
import { AuthError, messages } from "../../errors.ts";
import type { Identity } from "../../model/identity.ts";
import { mergeMetadata } from "../../model/metadata.ts";
import type { ProviderProfile } from "../../model/provider-profile.ts";
import { isBanned, newUser, type User, withProviders } from "../../model/user.ts";
import type { Stores } from "../../ports/stores.ts";
import { recordAudit } from "../../services/audit.ts";
import { beforeUserCreated } from "../../services/hooks/user-created.ts";
import { providerIdentity, providerIdentityData } from "../../services/identities/provider-identity.ts";

export interface SamlSignInInput {
  /** `sso:<provider id>`. */
  readonly provider: string;
  readonly profile: ProviderProfile;
  readonly context: RequestContext;
}

export interface SamlSignIn {
  readonly user: User;
  /** The user, when the sign-in created it. */
  readonly created?: User;
}

/**
 * Who a SAML sign-in is, in the caller's transaction. An identity provider is a linking domain of its own (GoTrue's
 * rule): its identity's user; else the user another identity of the same provider holds the address for (the IdP
 * changed the person's NameID); else a new SSO user, its address confirmed by the IdP. Never an account of another
 * provider, a password or an email link, whatever address they share: an IdP vouches for its own users only
 * (docs/compatibility.md, "Single sign-on").
 */
export async function signInWithSaml(deps: Deps, stores: Stores, input: SamlSignInInput): Promise<SamlSignIn> {
  const { provider, profile } = input;
  const now = deps.clock.now();
  const { email, identityData } = providerIdentityData(profile);
  const identityOf = (userId: string, existing?: Identity | null) =>
    providerIdentity({ id: deps.random.uuid(), userId, provider, profile, identityData, now, existing });

  const existing = await stores.identities.find(provider, profile.subject);
  const owner = existing ? await userOf(stores, existing.userId) : await sameProviderHolder(stores, provider, email);
  if (owner === null) return createSsoUser(deps, stores, { input, email, identity: identityOf });
  if (isBanned(owner, now)) throw new AuthError("user_banned", messages.userBanned);
  const identity = identityOf(owner.id, existing);
  const identities = [...owner.identities.filter((each) => each.id !== identity.id), identity];
  const user: User = {
    ...owner,
    identities,
    userMetadata: mergeMetadata(owner.userMetadata, identityData),
    appMetadata: withProviders(owner.appMetadata, identities),
    lastSignInAt: now,
    updatedAt: now,
  };
  await stores.identities.save(identity);
  await stores.users.update(user);
  const action = existing ? "login" : "identity_linked";
  await recordAudit(deps, stores, { action, actor: user, context: input.context, traits: { provider } });
  return { user };
}

async function userOf(stores: Stores, id: string): Promise<User | null> {
  const user = await stores.users.findById(id, { forUpdate: true });
  return user && user.deletedAt === null ? user : null;
}

/** The one user an identity of this provider holds the address for; none, or several, is no one. */
async function sameProviderHolder(stores: Stores, provider: string, email: string | null): Promise<User | null> {
  if (email === null) return null;
  const holders = new Set(
    (await stores.identities.findByEmails([email]))
      .filter((identity) => identity.provider === provider)
      .map((identity) => identity.userId),
  );
  const [only] = holders;
  return holders.size === 1 && only !== undefined ? userOf(stores, only) : null;
}

async function createSsoUser(
  deps: Deps,
  stores: Stores,
  step: {
    readonly input: SamlSignInInput;
    readonly email: string | null;
    readonly identity: (userId: string) => Identity;
  },
): Promise<SamlSignIn> {
  const { input, email } = step;
  if (deps.policy.signup.disabled) throw new AuthError("signup_disabled", messages.signupsDisabled);
  const now = deps.clock.now();
  const id = deps.random.uuid();
  const identity = step.identity(id);
  const user: User = {
    ...newUser({ id, aud: deps.policy.defaultAudience, role: deps.policy.defaultRole, now }),
    email,
    emailConfirmedAt: now,
    isSsoUser: true,
    lastSignInAt: now,
    appMetadata: withProviders({}, [identity]),
    userMetadata: identity.identityData,
    identities: [identity],
  };
  await beforeUserCreated(deps, stores, { user, context: input.context });
  await stores.users.insert(user);
  const traits = { provider: input.provider };
  await recordAudit(deps, stores, { action: "user_signedup", actor: user, context: input.context, traits });
  return { user, created: user };
}
