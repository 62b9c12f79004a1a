/**
 * The one error type of the domain. `code` is GoTrue's `error_code` string, byte for byte, so clients that match
 * on it keep working; `message` is the user-facing text. The HTTP layer alone decides status and body shape.
 */
export type ErrorCode =
  | "unexpected_failure"
  | "validation_failed"
  | "bad_json"
  | "request_entity_too_large"
  /** The request ran out of API_MAX_REQUEST_DURATION: the database gave up on its statement, or had no connection. */
  | "request_timeout"
  /**
   * Latchkey's own, GoTrue has none: a dependency cannot serve now (the database is unreachable, shutting down,
   * read-only during a failover). Answered 503 with Retry-After, which clients treat as retryable.
   */
  | "service_unavailable"
  | "not_found"
  | "email_exists"
  | "phone_exists"
  | "user_already_exists"
  | "bad_jwt"
  | "no_authorization"
  | "not_admin"
  | "user_not_found"
  | "session_not_found"
  | "session_expired"
  | "refresh_token_not_found"
  | "refresh_token_already_used"
  /** OAuth-shaped (`{error, error_description}`), as GoTrue answers an empty refresh_token. */
  | "invalid_request"
  | "signup_disabled"
  | "user_banned"
  | "email_provider_disabled"
  | "phone_provider_disabled"
  | "anonymous_provider_disabled"
  | "email_not_confirmed"
  | "phone_not_confirmed"
  | "invalid_credentials"
  | "weak_password"
  | "same_password"
  /** SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD: PUT /user without, or with a wrong, current password. */
  | "current_password_required"
  | "current_password_invalid"
  | "reauthentication_needed"
  | "reauthentication_not_valid"
  | "over_email_send_rate_limit"
  | "over_sms_send_rate_limit"
  | "over_request_rate_limit"
  | "otp_expired"
  | "flow_state_not_found"
  | "flow_state_expired"
  | "bad_code_verifier"
  | "sms_send_failed"
  /** /otp with create_user false for an address or number without an account. */
  | "otp_disabled"
  /** A captcha token missing or refused by its provider. */
  | "captcha_failed"
  /** OAuth sign-in (use-cases/oauth). */
  | "bad_oauth_state"
  | "bad_oauth_callback"
  | "flow_state_already_used"
  | "provider_email_needs_verification"
  | "identity_already_exists"
  | "identity_not_found"
  | "single_identity_not_deletable"
  | "email_conflict_identity_not_deletable"
  | "email_address_not_provided"
  | "unexpected_audience"
  /** SAML single sign-on: an identity provider's metadata that could not be fetched from its URL. */
  | "saml_metadata_fetch_failed"
  /** Another SAML provider has the EntityID, or one of the email domains, of the one being added or changed. */
  | "saml_idp_already_exists"
  | "sso_domain_already_exists"
  | "sso_provider_not_found"
  /** New metadata for a SAML provider naming another EntityID than the provider's. */
  | "saml_entity_id_mismatch"
  /** SAML sign-in: a provider switched off, a relay state unknown or late, an IdP nobody added, an assertion lacking. */
  | "sso_provider_disabled"
  | "saml_relay_state_not_found"
  | "saml_relay_state_expired"
  | "saml_idp_not_found"
  | "saml_assertion_no_user_id"
  | "saml_assertion_no_email"
  /** Custom providers (/admin/custom-providers): none of that identifier, too many, an identifier taken. */
  | "custom_provider_not_found"
  | "over_custom_provider_quota"
  | "conflict"
  /** What only the identity provider may change about an SSO user (its email, phone, password). */
  | "user_sso_managed"
  /** Answers of features Latchkey does not have, as GoTrue answers when they are switched off. */
  | "saml_provider_disabled"
  | "manual_linking_disabled"
  | "web3_provider_disabled"
  /** POST /token?grant_type=web3 for a chain other than ethereum and solana. */
  | "web3_unsupported_chain"
  | "passkey_disabled"
  | "feature_disabled"
  | "provider_disabled"
  | "mfa_totp_enroll_not_enabled"
  | "mfa_phone_enroll_not_enabled"
  | "mfa_webauthn_enroll_not_enabled"
  | "mfa_factor_not_found"
  /** MFA (use-cases/mfa). */
  | "mfa_totp_verify_not_enabled"
  | "mfa_phone_verify_not_enabled"
  | "mfa_factor_name_conflict"
  | "mfa_verified_factor_exists"
  | "too_many_enrolled_mfa_factors"
  | "insufficient_aal"
  | "mfa_ip_address_mismatch"
  | "mfa_challenge_expired"
  | "mfa_verification_failed"
  | "mfa_webauthn_verify_not_enabled"
  /** Passkeys and WebAuthn factors (use-cases/passkeys, use-cases/mfa). */
  | "too_many_passkeys"
  | "webauthn_challenge_not_found"
  | "webauthn_challenge_expired"
  | "webauthn_verification_failed"
  | "webauthn_credential_exists"
  /** The OAuth server (use-cases/oauth-server). */
  | "oauth_client_not_found"
  | "oauth_dynamic_client_registration_disabled"
  | "oauth_authorization_not_found"
  | "oauth_consent_not_found"
  /** RFC 6749's errors of the token endpoint, answered in its shape ({ error, error_description }). */
  | "invalid_client"
  | "invalid_grant"
  | "unsupported_grant_type"
  | "access_denied"
  /** Hooks (services/hooks): an MFA attempt the mfa_verification_attempt hook rejected. */
  | "mfa_verification_rejected"
  /** An HTTP hook that did not answer in time, or could not be reached on any attempt. */
  | "hook_timeout"
  | "hook_timeout_after_retry"
  /** An HTTP hook's answer over the size limit, or not JSON by its Content-Type. */
  | "hook_payload_over_size_limit"
  | "hook_payload_invalid_content_type"
  /**
   * A hook's own error with a status other than 500 (`hookStatus`): GoTrue has no code for it and answers `unknown`.
   * (With 500, or none, it is `unexpected_failure`.)
   */
  | "unknown";

/**
 * Cases the domain tells apart within one code because GoTrue answers them with another status than the code's
 * usual one. The client still hears the code; the transport alone decides what status each case gets.
 */
export type ErrorCase =
  /** The bearer token's own user or session is gone or has ended: whoever held it is no one now. */
  | "token_holder_gone"
  /** An anonymous user asked for what only a user with an address may have (MFA factors). */
  | "anonymous_caller"
  /** An anonymous user chose a password without an address to sign in with it. */
  | "password_without_address"
  /** A phone number already registered, met by a signup that would sign straight in. */
  | "phone_already_registered"
  /** An id naming the resource asked for (in a path) that cannot be one. */
  | "malformed_id"
  /** A challenge id that names no challenge of the factor: the request is wrong, not the path. */
  | "unknown_challenge"
  /** A passkey id (in a path) that names none of the user's: GoTrue's 404 under `validation_failed`. */
  | "unknown_passkey"
  /** An SSO user registering a passkey: its IdP is its way in (GoTrue's 422 under `validation_failed`). */
  | "sso_user_passkey";

export interface AuthErrorOptions {
  /** Structured extras that are part of the response (`{ reasons }` for weak_password). */
  readonly details?: Readonly<Record<string, unknown>>;
  /** Which case of the code this is, where GoTrue answers it differently (see ErrorCase). */
  readonly case?: ErrorCase;
  /** The internal cause: logged, never sent. */
  readonly cause?: unknown;
  /** Seconds after which retrying may succeed (rate limits). */
  readonly retryAfterSeconds?: number;
  /**
   * The status a hook chose for its own error (its `http_code`; a function's `PTxxx`): data, not a mapping of the
   * code, so the transport answers it as it is (docs/compatibility.md, Hooks).
   */
  readonly hookStatus?: number;
}

export class AuthError extends Error {
  override readonly name = "AuthError";
  readonly details: Readonly<Record<string, unknown>> | undefined;
  readonly case: ErrorCase | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly hookStatus: number | undefined;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: AuthErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.details = options.details;
    this.case = options.case;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.hookStatus = options.hookStatus;
  }
}

export function isAuthError(error: unknown, code?: ErrorCode): error is AuthError {
  return error instanceof AuthError && (code === undefined || error.code === code);
}

/** GoTrue's wording, kept where clients and people match on it. */
export const messages = {
  invalidLogin: "Invalid login credentials",
  userBanned: "User is banned",
  refreshTokenNotFound: "Invalid Refresh Token: Refresh Token Not Found",
  refreshTokenAlreadyUsed: "Invalid Refresh Token: Already Used",
  userAlreadyRegistered: "User already registered",
  signupsDisabled: "Signups not allowed for this instance",
  otpSignupsDisabled: "Signups not allowed for otp",
  emailExists: "A user with this email address has already been registered",
  phoneExists: "A user with this phone number has already been registered",
  requestRateLimit: "Request rate limit reached",
  requestTimeout: "Processing this request timed out, please retry after a moment.",
  serviceUnavailable: "The service is unavailable, please retry after a moment.",
} as const;
