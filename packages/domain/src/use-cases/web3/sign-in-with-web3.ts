import type { Deps, RequestContext, SessionGrant } from "../../deps.ts";
import { AuthError, messages } from "../../errors.ts";
import type { Identity } from "../../model/identity.ts";
import { mergeMetadata } from "../../model/metadata.ts";
import { isAllowedRedirect } from "../../model/redirect.ts";
import { isBanned, newUser, type User, withProviders } from "../../model/user.ts";
import { parseWeb3Message, type Web3Chain, type Web3Message } from "../../model/web3-message.ts";
import type { Stores } from "../../ports/stores.ts";
import { limitPerClient } from "../../services/abuse/request-limits.ts";
import { recordAudit } from "../../services/audit.ts";
import { afterUserCreated, beforeUserCreated } from "../../services/hooks/user-created.ts";
import { onceMoreIfRaced } from "../../services/identities/once-more-if-raced.ts";
import { grantSignIn, openSession } from "../../services/sessions.ts";
import { web3MessageDigest } from "../../services/tokens/digests.ts";

export interface SignInWithWeb3Input {
  readonly chain: string | undefined;
  readonly message: string | undefined;
  readonly signature: string | undefined;
  readonly context: RequestContext;
}

/** Supabase Auth's provider of Web3 identities; each is `web3:<chain>:<address>`. */
const PROVIDER = "web3";
const TITLE: Readonly<Record<Web3Chain, string>> = { ethereum: "Ethereum", solana: "Solana" };
const MIN_MESSAGE_BYTES = 64;
const MAX_MESSAGE_BYTES = 20 * 1024;

const disabled = (message: string) => new AuthError("web3_provider_disabled", message);
const invalid = (message: string) => new AuthError("validation_failed", message);
/** GoTrue's NewOAuthError("invalid_grant", ...): answered `{error, error_description}`, 400. */
const refused = (message: string) => new AuthError("invalid_grant", message);

/**
 * POST /token?grant_type=web3 (auth-js's signInWithWeb3): a Sign-In-With-Ethereum or Sign-In-With-Solana message
 * and the wallet's signature of it, checked as Supabase Auth checks them (its web3.go): the chain switched on, the
 * message's size, the signature's encoding, the message's grammar, the signature by the message's address, the URI
 * and domain allowed as redirects are (SITE_URL, URI_ALLOW_LIST), and its times within the chain's maximum validity.
 * Ours besides: a message signs in once. The wallet's identity signs in to its user, or a new user without email
 * or phone; never to an account it is not already the identity of.
 */
export async function signInWithWeb3(deps: Deps, input: SignInWithWeb3Input): Promise<SessionGrant> {
  await limitPerClient(deps, "web3", input.context);
  const { web3 } = deps.policy;
  if (!web3.solana.enabled && !web3.ethereum.enabled) throw disabled("Web3 provider is disabled");
  const chain = input.chain;
  if (chain !== "ethereum" && chain !== "solana") throw new AuthError("web3_unsupported_chain", "Unsupported chain");
  const title = TITLE[chain];
  if (!web3[chain].enabled || deps.web3 === null) throw disabled(`${title} Web3 provider is disabled`);

  const raw = input.message ?? "";
  const size = new TextEncoder().encode(raw).length;
  if (size < MIN_MESSAGE_BYTES) throw invalid("message is too short");
  if (size > MAX_MESSAGE_BYTES) throw invalid("message must not exceed 20KB");
  const signature = input.signature ?? "";
  checkSignatureEncoding(chain, signature);
  const message = parseWeb3Message(chain, raw);
  const signer = await deps.web3.signerOf({ chain, message, signature });
  if (signer === null) throw refused("Signature does not match address in message");
  checkAudience(deps, title, message);
  const now = deps.clock.now();
  const latestAcceptable = checkTimes(deps, chain, message, now);

  let created: User | undefined;
  const signedIn = await onceMoreIfRaced(() =>
    deps.tx.run(async (stores) => {
      // security: a message signs in once, whoever saw it go by; remembered with the sign-in it makes, so a
      // sign-in that fails leaves it usable.
      if (!(await stores.usedIdTokens.remember(web3MessageDigest(deps.secrets, chain, raw), latestAcceptable, now))) {
        throw refused(`Signed ${title} message has already been used`);
      }
      const outcome = await accountOf(deps, stores, { chain, message, signer, context: input.context });
      created = outcome.created;
      const opened = await openSession(deps, stores, outcome.user, { method: "web3", context: input.context });
      return { user: outcome.user, opened };
    }),
  );
  if (created !== undefined) {
    deps.events.record({ kind: "signed_up", provider: PROVIDER });
    await afterUserCreated(deps, { user: created, context: input.context });
  }
  return grantSignIn(deps, signedIn.user, signedIn.opened, PROVIDER);
}

/**
 * GoTrue's checks of the signature's text, before the message is read: Solana's 64 bytes in base64 or base64url
 * (86 characters, 88 padded), Ethereum's 65 bytes in hex (130 digits, after an optional 0x).
 */
function checkSignatureEncoding(chain: Web3Chain, signature: string): void {
  if (chain === "solana") {
    if (signature.length !== 86 && signature.length !== 88) {
      throw invalid("signature must be 64 bytes encoded as base64 with or without padding");
    }
    if (!/^[A-Za-z0-9+/_-]*$/.test(signature.replace(/=+$/, ""))) {
      throw invalid("signature does not contain valid base64 characters");
    }
    return;
  }
  if (signature.replace(/^0x/, "").length !== 130) {
    throw invalid("signature must be 65 bytes long, encoded as a 130 character-long hexadecimal string");
  }
}

/**
 * The message must be for this app: its URI https (or on localhost) and allowed as a redirect is, and, off
 * localhost, its domain the URI's host and allowed too. Otherwise it was signed for another site, which could
 * replay it here.
 */
function checkAudience(deps: Deps, title: string, message: Web3Message): void {
  const { uri, domain } = message;
  const redirect = deps.policy.redirect;
  if (uri.scheme !== "https" && uri.hostname !== "localhost") {
    throw refused(`Signed ${title} message is using URI which does not use HTTPS`);
  }
  if (!isAllowedRedirect(uri.text, redirect)) {
    throw refused(
      `Signed ${title} message is using URI which is not allowed on this server, message was signed for another app`,
    );
  }
  if (uri.hostname !== "localhost" && (uri.host !== domain || !isAllowedRedirect(`https://${domain}/`, redirect))) {
    throw refused(
      `Signed ${title} message is using a Domain that does not match the one in URI which is not allowed on this server`,
    );
  }
}

/**
 * Not Before passed, Expiration Time not, Issued At within the chain's maximum validity either way; the latest
 * moment the message is acceptable, until which it is remembered as used.
 */
function checkTimes(deps: Deps, chain: Web3Chain, message: Web3Message, now: Date): Date {
  const title = TITLE[chain];
  const { notBefore, expirationTime, issuedAt } = message;
  if (notBefore !== null && now < notBefore) throw refused(`Signed ${title} message becomes valid in the future`);
  // GoTrue checks an Ethereum message's Expiration Time only when it has a Not Before too; ours always does.
  if (expirationTime !== null && now > expirationTime) throw refused(`Signed ${title} message is expired`);
  const validityMs = deps.policy.web3[chain].maximumValiditySeconds * 1000;
  const latestExpiry = new Date(issuedAt.getTime() + validityMs);
  if (now > latestExpiry) throw refused(`${title} message was issued too long ago`);
  if (now.getTime() < issuedAt.getTime() - validityMs)
    throw refused(`${title} message was issued too far in the future`);
  return expirationTime !== null && expirationTime < latestExpiry ? expirationTime : latestExpiry;
}

interface Web3Account {
  readonly user: User;
  /** The user, when the sign-in created it. */
  readonly created?: User;
}

/**
 * The user of the wallet's identity, its identity data refreshed; else a new user with that identity alone, no
 * email and no phone. Supabase Auth links Web3 identities to nothing else (there is no address to link by), and
 * neither does Latchkey.
 */
async function accountOf(
  deps: Deps,
  stores: Stores,
  sign: { chain: Web3Chain; message: Web3Message; signer: string; context: RequestContext },
): Promise<Web3Account> {
  const { chain, message, signer, context } = sign;
  const now = deps.clock.now();
  const providerId = `${PROVIDER}:${chain}:${signer}`;
  const { chainId: network, domain } = message;
  const identityData = {
    sub: providerId,
    // GoTrue's Ethereum message has no statement (null) or one; its Solana message an empty one.
    custom_claims: {
      address: signer,
      chain,
      network,
      domain,
      statement: message.statement ?? (chain === "solana" ? "" : null),
    },
    email_verified: false,
    phone_verified: false,
  };
  const traits = { provider: PROVIDER, chain, network, address: signer, domain, uri: message.uri.text };
  const identityOf = (userId: string, existing: Identity | null): Identity => ({
    id: existing?.id ?? deps.random.uuid(),
    userId,
    provider: PROVIDER,
    providerId,
    identityData,
    lastSignInAt: now,
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  });

  const existing = await stores.identities.find(PROVIDER, providerId);
  const owner = existing === null ? null : await stores.users.findById(existing.userId, { forUpdate: true });
  let user: User;
  if (existing !== null && owner !== null && owner.deletedAt === null) {
    if (isBanned(owner, now)) throw new AuthError("user_banned", messages.userBanned);
    const identity = identityOf(owner.id, existing);
    user = signedInAgain(owner, identity, now);
    await stores.identities.save(identity);
    await stores.users.update(user);
  } else {
    if (deps.policy.signup.disabled) throw new AuthError("signup_disabled", messages.signupsDisabled);
    const id = deps.random.uuid();
    const identity = identityOf(id, null);
    user = {
      ...newUser({ id, aud: deps.policy.defaultAudience, role: deps.policy.defaultRole, now }),
      lastSignInAt: now,
      appMetadata: withProviders({}, [identity]),
      userMetadata: identityData,
      identities: [identity],
    };
    await beforeUserCreated(deps, stores, { user, context });
    await stores.users.insert(user);
  }
  // One entry, as Supabase Auth's second (its first says only the provider).
  await recordAudit(deps, stores, { action: "login", actor: user, context, traits });
  return owner !== null && user.id === owner.id ? { user } : { user, created: user };
}

/** The owner with its wallet identity refreshed: identity data merged into user_metadata, as GoTrue does. */
function signedInAgain(owner: User, identity: Identity, now: Date): User {
  const identities = [...owner.identities.filter((each) => each.id !== identity.id), identity];
  return {
    ...owner,
    identities,
    userMetadata: mergeMetadata(owner.userMetadata, identity.identityData),
    appMetadata: withProviders(owner.appMetadata, identities),
    lastSignInAt: now,
    updatedAt: now,
  };
}
