import type { AdminPrincipal, Deps, Principal, RequestContext } from "./deps.ts";
import { createDurationEstimates } from "./model/duration-estimate.ts";
import type { AuthPolicy } from "./policy.ts";
import type { Ports } from "./ports/index.ts";
import { type RefreshSessionInput, refreshSession } from "./services/refresh-session.ts";
import { calibrateTimings } from "./use-cases/abuse/calibrate-timings.ts";
import { type CheckCaptchaInput, checkCaptcha } from "./use-cases/abuse/captcha.ts";
import { type AdminCreateUserInput, adminCreateUser } from "./use-cases/admin/create-user.ts";
import { type AdminDeleteUserInput, adminDeleteUser } from "./use-cases/admin/delete-user.ts";
import { type GenerateLinkInput, generateLink } from "./use-cases/admin/generate-link.ts";
import { type InviteUserInput, inviteUser } from "./use-cases/admin/invite-user.ts";
import { type AdminListAuditInput, adminListAudit } from "./use-cases/admin/list-audit.ts";
import { type AdminListUsersInput, adminGetUser, adminListUsers } from "./use-cases/admin/list-users.ts";
import { type AdminUpdateUserInput, adminUpdateUser } from "./use-cases/admin/update-user.ts";
import { type AdminSignOutUserInput, adminListSessions, adminSignOutUser } from "./use-cases/admin/user-sessions.ts";
import {
  type CustomProviderInput,
  type CustomProviderRef,
  createCustomProvider,
  deleteCustomProvider,
  getCustomProvider,
  listCustomProviders,
  updateCustomProvider,
} from "./use-cases/custom-providers/admin.ts";
import { type ClaimedMessage, deliverClaimedMessage } from "./use-cases/delivery/deliver-message.ts";
import { claimDueMessages, deliverDueMessages, outboxDepth, renewClaims } from "./use-cases/delivery/outbox.ts";
import { type ResendInput, resend } from "./use-cases/delivery/resend.ts";
import { type CleanUpOptions, cleanUpStaleRows } from "./use-cases/maintenance/clean-up-stale-rows.ts";
import {
  type AdminDeleteFactorInput,
  type AdminUpdateFactorInput,
  adminDeleteFactor,
  adminListFactors,
  adminUpdateFactor,
} from "./use-cases/mfa/admin-factors.ts";
import { type ChallengeFactorInput, challengeFactor } from "./use-cases/mfa/challenge-factor.ts";
import { type EnrollFactorInput, enrollFactor } from "./use-cases/mfa/enroll-factor.ts";
import { type UnenrollFactorInput, unenrollFactor } from "./use-cases/mfa/unenroll-factor.ts";
import { type VerifyFactorInput, verifyFactor } from "./use-cases/mfa/verify-factor.ts";
import { type CompleteOAuthInput, completeOAuth } from "./use-cases/oauth/complete-sign-in.ts";
import { type SignInWithIdTokenInput, signInWithIdToken } from "./use-cases/oauth/sign-in-with-id-token.ts";
import { type StartOAuthInput, startOAuth } from "./use-cases/oauth/start-sign-in.ts";
import { type UnlinkIdentityInput, unlinkIdentity } from "./use-cases/oauth/unlink-identity.ts";
import { type AuthorizeRequest, startAuthorization } from "./use-cases/oauth-server/authorize.ts";
import type { ClientCredentials } from "./use-cases/oauth-server/client-authentication.ts";
import {
  type ClientMetadata,
  type ClientUpdate,
  deleteClient,
  getClient,
  listClients,
  regenerateClientSecret,
  registerClient,
  registerClientDynamically,
  updateClient,
} from "./use-cases/oauth-server/clients.ts";
import { type ConsentCaller, decideConsent, getAuthorization } from "./use-cases/oauth-server/consent.ts";
import { listGrants, revokeGrant, userInfo } from "./use-cases/oauth-server/grants.ts";
import { issueOAuthTokens, type OAuthTokenRequest } from "./use-cases/oauth-server/token.ts";
import {
  type AdminDeletePasskeyInput,
  adminDeletePasskey,
  adminListPasskeys,
  type DeletePasskeyInput,
  deletePasskey,
  listPasskeys,
  type RenamePasskeyInput,
  renamePasskey,
} from "./use-cases/passkeys/manage-passkeys.ts";
import {
  type PasskeyRegistrationInput,
  startPasskeyRegistration,
  type VerifyPasskeyRegistrationInput,
  verifyPasskeyRegistration,
} from "./use-cases/passkeys/register-passkey.ts";
import {
  type SignInWithPasskeyInput,
  signInWithPasskey,
  startPasskeySignIn,
} from "./use-cases/passkeys/sign-in-with-passkey.ts";
import { reauthenticate } from "./use-cases/recovery/reauthenticate.ts";
import { type RecoverPasswordInput, recoverPassword } from "./use-cases/recovery/recover-password.ts";
import { type AuthenticateInput, authenticate } from "./use-cases/sessions/authenticate.ts";
import { authorizeAdmin } from "./use-cases/sessions/authorize-admin.ts";
import { type SignOutInput, signOut } from "./use-cases/sessions/sign-out.ts";
import { type ExchangeAuthCodeInput, exchangeAuthCode } from "./use-cases/sign-in/exchange-auth-code.ts";
import { type SendMagicLinkInput, sendMagicLink } from "./use-cases/sign-in/send-magic-link.ts";
import { type SendSmsOtpInput, sendSmsOtp } from "./use-cases/sign-in/send-sms-otp.ts";
import { type SignInWithPasswordInput, signInWithPassword } from "./use-cases/sign-in/sign-in-with-password.ts";
import { type SignUpInput, signUp } from "./use-cases/sign-up/sign-up.ts";
import { type CompleteSamlInput, completeSaml } from "./use-cases/sso/complete-saml.ts";
import {
  createSsoProvider,
  deleteSsoProvider,
  getSsoProvider,
  listSsoProviders,
  type SsoProviderInput,
  type SsoProviderRef,
  updateSsoProvider,
} from "./use-cases/sso/providers.ts";
import { serviceProviderMetadata } from "./use-cases/sso/service-provider-metadata.ts";
import { type StartSsoInput, startSso } from "./use-cases/sso/start-sso.ts";
import { type UpdateUserInput, updateUser } from "./use-cases/user/update-user.ts";
import { type VerifyInput, verify } from "./use-cases/verification/verify.ts";
import { type SignInWithWeb3Input, signInWithWeb3 } from "./use-cases/web3/sign-in-with-web3.ts";

/** The use cases, bound to their ports and policy. */
export function createAuth(ports: Ports, policy: AuthPolicy) {
  const deps: Deps = { ...ports, policy, durations: createDurationEstimates() };
  const unscoped = useCasesOf(deps);
  const { within } = ports;
  return {
    ...unscoped,
    /**
     * The use cases for one request, which must be answered by `deadlineAt` (ms since the epoch): the storage work
     * it does ends by then (Ports.within). The same use cases where storage has no time limits.
     */
    within: (deadlineAt: number): UseCases => (within ? useCasesOf({ ...deps, ...within(deadlineAt) }) : unscoped),
  };
}

function useCasesOf(deps: Deps) {
  const { policy } = deps;
  return {
    policy,
    /** Whether requests of the protected endpoints must carry a captcha token (SECURITY_CAPTCHA_ENABLED). */
    captchaEnabled: deps.captcha !== null,
    signUp: (input: SignUpInput) => signUp(deps, input),
    signInWithPassword: (input: SignInWithPasswordInput) => signInWithPassword(deps, input),
    /** POST /token?grant_type=web3: a message signed with an Ethereum or Solana wallet (use-cases/web3). */
    signInWithWeb3: (input: SignInWithWeb3Input) => signInWithWeb3(deps, input),
    refreshSession: (input: RefreshSessionInput) => refreshSession(deps, input),
    authenticate: (input: AuthenticateInput) => authenticate(deps, input),
    updateUser: (input: UpdateUserInput) => updateUser(deps, input),
    signOut: (input: SignOutInput) => signOut(deps, input),
    verify: (input: VerifyInput) => verify(deps, input),
    exchangeAuthCode: (input: ExchangeAuthCodeInput) => exchangeAuthCode(deps, input),
    sendMagicLink: (input: SendMagicLinkInput) => sendMagicLink(deps, input),
    oauth: {
      start: (input: StartOAuthInput) => startOAuth(deps, input),
      complete: (input: CompleteOAuthInput) => completeOAuth(deps, input),
      unlinkIdentity: (input: UnlinkIdentityInput) => unlinkIdentity(deps, input),
      signInWithIdToken: (input: SignInWithIdTokenInput) => signInWithIdToken(deps, input),
    },
    mfa: {
      enroll: (input: EnrollFactorInput) => enrollFactor(deps, input),
      challenge: (input: ChallengeFactorInput) => challengeFactor(deps, input),
      verify: (input: VerifyFactorInput) => verifyFactor(deps, input),
      unenroll: (input: UnenrollFactorInput) => unenrollFactor(deps, input),
    },
    passkeys: passkeyUseCases(deps),
    oauthServer: oauthServerUseCases(deps),
    sso: ssoUseCases(deps),
    customProviders: customProviderUseCases(deps),
    sendSmsOtp: (input: SendSmsOtpInput) => sendSmsOtp(deps, input),
    recoverPassword: (input: RecoverPasswordInput) => recoverPassword(deps, input),
    resend: (input: ResendInput) => resend(deps, input),
    reauthenticate: (input: { principal: Principal; context: RequestContext }) => reauthenticate(deps, input),
    inviteUser: (input: InviteUserInput) => inviteUser(deps, input),
    authorizeAdmin: (input: { accessToken: string }) => authorizeAdmin(deps, input),
    checkCaptcha: (input: CheckCaptchaInput) => checkCaptcha(deps, input),
    admin: adminUseCases(deps),
    deliverDueMessages: (options?: { limit?: number }) => deliverDueMessages(deps, options),
    claimDueMessages: (options: { limit: number }) => claimDueMessages(deps, options),
    cleanUpStaleRows: (options: CleanUpOptions) => cleanUpStaleRows(deps, options),
    deliverClaimedMessage: (message: ClaimedMessage) => deliverClaimedMessage(deps, message),
    /** Every OUTBOX_RENEWAL_SECONDS, for the messages still being sent: keeps their leases; returns those kept. */
    renewClaims: (held: readonly ClaimedMessage[]) => renewClaims(deps, held),
    /** The outbox's backlog per channel, for metrics. */
    outboxDepth: () => outboxDepth(deps),
    /** Once at start: times a hash and a write here, so that answers padded to hide accounts are padded from the first. */
    calibrateTimings: () => calibrateTimings(deps),
  };
}

/** The admin API (use-cases/admin, and the admin's halves of MFA and passkeys). */
function adminUseCases(deps: Deps) {
  return {
    createUser: (input: AdminCreateUserInput) => adminCreateUser(deps, input),
    updateUser: (input: AdminUpdateUserInput) => adminUpdateUser(deps, input),
    deleteUser: (input: AdminDeleteUserInput) => adminDeleteUser(deps, input),
    getUser: (input: { userId: string }) => adminGetUser(deps, input),
    listUsers: (input: AdminListUsersInput) => adminListUsers(deps, input),
    listAudit: (input: AdminListAuditInput) => adminListAudit(deps, input),
    generateLink: (input: GenerateLinkInput) => generateLink(deps, input),
    listFactors: (input: { userId: string }) => adminListFactors(deps, input),
    deleteFactor: (input: AdminDeleteFactorInput) => adminDeleteFactor(deps, input),
    updateFactor: (input: AdminUpdateFactorInput) => adminUpdateFactor(deps, input),
    listPasskeys: (input: { userId: string }) => adminListPasskeys(deps, input),
    deletePasskey: (input: AdminDeletePasskeyInput) => adminDeletePasskey(deps, input),
    /** Latchkey's own: a user's sessions, newest first. */
    listSessions: (input: { userId: string }) => adminListSessions(deps, input),
    /** Latchkey's own: ends every session of a user (sign out everywhere). */
    signOutUser: (input: AdminSignOutUserInput) => adminSignOutUser(deps, input),
  };
}

/** Passkeys: registering them, signing in with them, managing them (use-cases/passkeys). */
function passkeyUseCases(deps: Deps) {
  return {
    startRegistration: (input: PasskeyRegistrationInput) => startPasskeyRegistration(deps, input),
    verifyRegistration: (input: VerifyPasskeyRegistrationInput) => verifyPasskeyRegistration(deps, input),
    startSignIn: (input: { context: RequestContext }) => startPasskeySignIn(deps, input),
    signIn: (input: SignInWithPasskeyInput) => signInWithPasskey(deps, input),
    list: (input: { principal: Principal }) => listPasskeys(deps, input),
    rename: (input: RenamePasskeyInput) => renamePasskey(deps, input),
    delete: (input: DeletePasskeyInput) => deletePasskey(deps, input),
  };
}

/** SAML single sign-on (use-cases/sso): signing in, our service provider's metadata, the admin's identity providers. */
function ssoUseCases(deps: Deps) {
  return {
    start: (input: StartSsoInput) => startSso(deps, input),
    completeSaml: (input: CompleteSamlInput) => completeSaml(deps, input),
    serviceProviderMetadata: (input: { download: boolean }) => serviceProviderMetadata(deps, input),
    listProviders: (filter: { resourceId?: string | undefined; resourceIdPrefix?: string | undefined }) =>
      listSsoProviders(deps, filter),
    getProvider: (ref: SsoProviderRef) => getSsoProvider(deps, ref),
    createProvider: (input: SsoProviderInput) => createSsoProvider(deps, input),
    updateProvider: (input: SsoProviderRef & { update: SsoProviderInput }) => updateSsoProvider(deps, input),
    deleteProvider: (ref: SsoProviderRef) => deleteSsoProvider(deps, ref),
  };
}

/** The admin's custom OAuth/OIDC providers (use-cases/custom-providers). */
function customProviderUseCases(deps: Deps) {
  type Call = { admin: AdminPrincipal; context: RequestContext };
  return {
    list: (filter: { type?: string | undefined }) => listCustomProviders(deps, filter),
    get: (ref: CustomProviderRef) => getCustomProvider(deps, ref),
    create: (input: Call & { provider: CustomProviderInput }) => createCustomProvider(deps, input),
    update: (input: Call & CustomProviderRef & { update: CustomProviderInput }) => updateCustomProvider(deps, input),
    delete: (input: Call & CustomProviderRef) => deleteCustomProvider(deps, input),
  };
}

/** Latchkey as an OAuth 2.1 authorization server (use-cases/oauth-server). */
function oauthServerUseCases(deps: Deps) {
  return {
    registerClient: (input: { metadata: ClientMetadata }) => registerClient(deps, input),
    registerClientDynamically: (input: { metadata: ClientMetadata; context: RequestContext }) =>
      registerClientDynamically(deps, input),
    listClients: () => listClients(deps),
    getClient: (input: { clientId: string }) => getClient(deps, input),
    updateClient: (input: { clientId: string; update: ClientUpdate }) => updateClient(deps, input),
    deleteClient: (input: { clientId: string }) => deleteClient(deps, input),
    regenerateClientSecret: (input: { clientId: string }) => regenerateClientSecret(deps, input),
    authorize: (request: AuthorizeRequest) => startAuthorization(deps, request),
    getAuthorization: (caller: ConsentCaller) => getAuthorization(deps, caller),
    consent: (caller: ConsentCaller & { action: string | undefined }) => decideConsent(deps, caller),
    token: (input: { credentials: ClientCredentials; request: OAuthTokenRequest; context: RequestContext }) =>
      issueOAuthTokens(deps, input),
    userInfo: (input: { principal: Principal }) => userInfo(deps, input),
    listGrants: (input: { principal: Principal }) => listGrants(deps, input),
    revokeGrant: (input: { principal: Principal; clientId: string | undefined; context: RequestContext }) =>
      revokeGrant(deps, input),
  };
}

export type Auth = ReturnType<typeof createAuth>;
/** The use cases, as one request sees them (Auth.within). */
export type UseCases = ReturnType<typeof useCasesOf>;
