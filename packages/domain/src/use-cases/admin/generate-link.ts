import type { AdminPrincipal, Deps, RequestContext } from "../../deps.ts";
import { AuthError, messages } from "../../errors.ts";
import type { AuditAction } from "../../model/audit.ts";
import { normalizeEmail } from "../../model/email.ts";
import type { LinkEmail } from "../../model/mail.ts";
import { assertMetadataFits, type Metadata, mergeMetadata } from "../../model/metadata.ts";
import type { OneTimeTokenKind, PendingChoices } from "../../model/one-time-token.ts";
import { chooseRedirect } from "../../model/redirect.ts";
import { isEmailConfirmed, type User, withEmailChangeRequested } from "../../model/user.ts";
import type { Stores } from "../../ports/stores.ts";
import { newAccountForAdmin } from "../../services/accounts/new-account.ts";
import { assertPasswordStrong } from "../../services/accounts/password-strength.ts";
import { recordAdminAudit } from "../../services/audit.ts";
import { assertContactFree } from "../../services/contacts/contact-holders.ts";
import { type LinkTokenKind, linkEmail } from "../../services/delivery/link-email.ts";
import { afterUserCreated, beforeUserCreated } from "../../services/hooks/user-created.ts";
import { issueToken } from "../../services/tokens/issue-token.ts";
import { decideLink, GENERATE_LINK_TYPES, type GenerateLinkType, type LinkDecision } from "./link-decision.ts";

export interface GenerateLinkInput {
  readonly admin: AdminPrincipal;
  readonly type: string;
  readonly email: string;
  /** The address an email change moves to. */
  readonly newEmail?: string | undefined;
  /** Only for `signup`: the password the account gets once the link is followed. */
  readonly password?: string | undefined;
  /** For a user this creates (`signup`, `invite`, a `magiclink` to an unknown address): their user_metadata. */
  readonly data?: Metadata | undefined;
  /** Where the link may lead, in order of preference; SITE_URL when none is allowed. */
  readonly redirectTo?: readonly (string | undefined)[];
  readonly audience?: string | undefined;
  readonly context: RequestContext;
}

export interface GeneratedLink {
  readonly user: User;
  /** The mail the matching flow would have sent, unsent: its link is built from it exactly as a mail's is. */
  readonly email: LinkEmail;
  /** The type actually used: a magic link to an unknown address signs up. */
  readonly verificationType: GenerateLinkType;
}

/** What each type records in the audit log, with the admin as the actor. */
const AUDIT_ACTION: Record<GenerateLinkType, AuditAction> = {
  signup: "user_confirmation_requested",
  invite: "user_invited",
  magiclink: "user_recovery_requested",
  recovery: "user_recovery_requested",
  email_change_current: "user_modified",
  email_change_new: "user_modified",
};

/**
 * POST /admin/generate_link: does what the matching flow does (creates the user for a signup or invitation,
 * records the pending email change) and issues its token, but sends nothing: the admin delivers the link. No send
 * limits apply, and tokens never start a PKCE flow (an admin has no verifier).
 */
export async function generateLink(deps: Deps, input: GenerateLinkInput): Promise<GeneratedLink> {
  const requested = GENERATE_LINK_TYPES.find((type) => type === input.type);
  if (!requested) throw new AuthError("validation_failed", `Invalid email action link type requested: ${input.type}`);
  const address = normalizeEmail(input.email);
  if (input.password !== undefined && requested !== "signup") {
    throw new AuthError("validation_failed", "A password can only be given for signup links");
  }
  const redirectTo = chooseRedirect(input.redirectTo ?? [], deps.policy.redirect);
  const existing = await deps.stores.users.findByEmail(address);
  const secureEmailChange = deps.policy.email.secureEmailChange;
  const decision = decideLink({ requested, existing, password: input.password, secureEmailChange });
  if (decision.kind === "refuse") throw REFUSALS[decision.reason]();

  let passwordHash: string | null = null;
  if (decision.hashPassword) {
    await assertPasswordStrong(deps, input.password!);
    passwordHash = await deps.hasher.hash(input.password!);
  }
  let newEmail: string | null = null;
  if (decision.emailChange) {
    newEmail = normalizeEmail(input.newEmail ?? "");
    await assertContactFree(deps, { provider: "email", address: newEmail }, existing!.id);
  }
  const plan: LinkPlan = { input, type: decision.type, address, existing, passwordHash, newEmail, redirectTo };
  const link = await deps.tx.run((stores) => writeLink(deps, stores, plan));
  if (existing === null) await afterUserCreated(deps, { user: link.user, context: input.context });
  return link;
}

const REFUSALS: Record<Extract<LinkDecision, { kind: "refuse" }>["reason"], () => AuthError> = {
  user_not_found: () => new AuthError("user_not_found", "User with this email not found"),
  email_exists: () => new AuthError("email_exists", messages.emailExists),
  password_required: () => new AuthError("validation_failed", "Signup requires a valid password"),
  secure_email_change_off: () =>
    new AuthError("validation_failed", "Enable secure email change to generate link for current email"),
};

/** What decideLink chose, with what the request gave for it. */
interface LinkPlan {
  readonly input: GenerateLinkInput;
  readonly type: GenerateLinkType;
  readonly address: string;
  readonly existing: User | null;
  readonly passwordHash: string | null;
  /** The address an email change moves to. */
  readonly newEmail: string | null;
  readonly redirectTo: string;
}

/** The account written as the link's flow would, on its row as it is under the lock, and the link's token issued. */
async function writeLink(deps: Deps, stores: Stores, plan: LinkPlan): Promise<GeneratedLink> {
  const { input, type, existing } = plan;
  const now = deps.clock.now();
  const current = existing ? await stores.users.findById(existing.id, { forUpdate: true }) : null;
  if (existing && !current) throw new AuthError("user_not_found", "User with this email not found");
  if (current && isEmailConfirmed(current) && (type === "signup" || type === "invite")) {
    throw new AuthError("email_exists", messages.emailExists);
  }
  const { user, kind } = await linkTarget(deps, stores, { plan, current, now });
  assertMetadataFits("user_metadata", user.userMetadata, current?.userMetadata);
  if (current) await stores.users.update(user);
  else {
    await beforeUserCreated(deps, stores, { user, context: input.context });
    await stores.users.insert(user);
  }
  // A signup link asked again keeps what the pending confirmation carries (as /resend), but for a password the
  // admin gives. An admin's data is no unproven party's: it went into the account above.
  const pending = kind === "confirmation" ? await stores.oneTimeTokens.findByUser(user.id, kind) : null;
  const choices = {
    passwordHash: plan.passwordHash ?? pending?.passwordHash ?? null,
    userMetadata: pending?.userMetadata ?? null,
    identityId: pending?.identityId ?? null,
  };
  const email = await issueLinkToken(deps, stores, { user, kind, redirectTo: plan.redirectTo, choices });
  const traits = { link_type: type };
  await recordAdminAudit(deps, stores, {
    action: AUDIT_ACTION[type],
    admin: input.admin,
    target: user,
    context: input.context,
    traits,
  });
  return { user, email, verificationType: type };
}

/** The account as the link's flow leaves it (created for a signup or invitation), and the kind of its token. */
async function linkTarget(
  deps: Deps,
  stores: Stores,
  step: { readonly plan: LinkPlan; readonly current: User | null; readonly now: Date },
): Promise<{ user: User; kind: LinkTokenKind }> {
  const { plan, current, now } = step;
  const { input, type } = plan;
  const contact = { provider: "email", address: plan.address } as const;
  const created = () =>
    newAccountForAdmin(deps, { contact, passwordHash: plan.passwordHash, data: input.data, audience: input.audience });
  switch (type) {
    case "signup": {
      const user = current
        ? {
            ...current,
            userMetadata: input.data ? mergeMetadata(current.userMetadata, input.data) : current.userMetadata,
          }
        : created();
      return { user: { ...user, confirmationSentAt: now, updatedAt: now }, kind: "confirmation" };
    }
    case "invite":
      return {
        user: { ...(current ?? created()), invitedAt: now, confirmationSentAt: now, updatedAt: now },
        kind: "invite",
      };
    case "magiclink":
    case "recovery":
      return {
        user: { ...current!, recoverySentAt: now, updatedAt: now },
        kind: type === "magiclink" ? "magic_link" : "recovery",
      };
    case "email_change_current":
    case "email_change_new": {
      if (current!.newEmail === plan.newEmail) {
        // Another link for the change already pending: what either address confirmed of it still counts.
        return { user: { ...current!, emailChangeSentAt: now, updatedAt: now }, kind: type };
      }
      // A new change: the other address's pending link and any confirmation belonged to the one it replaces.
      const user = withEmailChangeRequested(current!, plan.newEmail!, now);
      await dropToken(stores, user, type === "email_change_new" ? "email_change_current" : "email_change_new");
      return { user, kind: type };
    }
  }
}

async function dropToken(stores: Stores, user: User, kind: OneTimeTokenKind): Promise<void> {
  const pending = await stores.oneTimeTokens.findByUser(user.id, kind);
  if (pending) await stores.oneTimeTokens.delete(pending.id);
}

/** Issues the token, replacing any pending one of its kind, and describes the mail that would carry it. */
async function issueLinkToken(
  deps: Deps,
  stores: Stores,
  request: { user: User; kind: LinkTokenKind; redirectTo: string; choices: PendingChoices },
): Promise<LinkEmail> {
  const { user, kind, redirectTo } = request;
  const to = kind === "email_change_new" ? user.newEmail! : user.email!;
  const issued = await issueToken(deps, stores, {
    user,
    kind,
    channel: "email",
    address: to,
    choices: request.choices,
  });
  return linkEmail({ tokenKind: kind, user, to, issued, redirectTo, data: user.userMetadata });
}
