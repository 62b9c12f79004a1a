import type { AuthError, ErrorCase, ErrorCode } from "@latchkey/domain";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Endpoint } from "../app-env.ts";

// The one place that decides the status of an error. GoTrue fixes a status where it raises an error, so most codes
// have one status everywhere, and the few exceptions are either cases the domain tells apart or endpoints whose
// handler answers otherwise. Each line can be checked against GoTrue's handlers.

/** The status GoTrue answers each code with in most places. */
const BY_CODE = {
  unexpected_failure: 500,
  validation_failed: 400,
  bad_json: 400,
  request_entity_too_large: 413,
  request_timeout: 504,
  // Latchkey's own code (docs/compatibility.md, Errors): auth-js retries 502, 503 and 504.
  service_unavailable: 503,
  not_found: 404,
  email_exists: 422,
  phone_exists: 422,
  user_already_exists: 422,
  bad_jwt: 403,
  no_authorization: 401,
  not_admin: 403,
  user_not_found: 404,
  session_not_found: 403,
  session_expired: 400,
  refresh_token_not_found: 400,
  refresh_token_already_used: 400,
  invalid_request: 400,
  signup_disabled: 422,
  user_banned: 403,
  email_provider_disabled: 400,
  phone_provider_disabled: 400,
  anonymous_provider_disabled: 422,
  email_not_confirmed: 400,
  phone_not_confirmed: 400,
  invalid_credentials: 400,
  weak_password: 422,
  same_password: 422,
  current_password_required: 400,
  current_password_invalid: 400,
  reauthentication_needed: 400,
  reauthentication_not_valid: 422,
  over_email_send_rate_limit: 429,
  over_sms_send_rate_limit: 429,
  over_request_rate_limit: 429,
  otp_expired: 403,
  flow_state_not_found: 404,
  flow_state_expired: 422,
  bad_code_verifier: 400,
  sms_send_failed: 422,
  otp_disabled: 422,
  captcha_failed: 400,
  bad_oauth_state: 400,
  bad_oauth_callback: 400,
  flow_state_already_used: 400,
  provider_email_needs_verification: 422,
  identity_already_exists: 422,
  identity_not_found: 422,
  single_identity_not_deletable: 422,
  email_conflict_identity_not_deletable: 422,
  email_address_not_provided: 422,
  unexpected_audience: 403,
  saml_metadata_fetch_failed: 400,
  saml_idp_already_exists: 422,
  sso_domain_already_exists: 400,
  sso_provider_not_found: 404,
  saml_entity_id_mismatch: 400,
  sso_provider_disabled: 404,
  saml_relay_state_not_found: 404,
  saml_relay_state_expired: 422,
  saml_idp_not_found: 404,
  saml_assertion_no_user_id: 400,
  saml_assertion_no_email: 400,
  user_sso_managed: 422,
  custom_provider_not_found: 404,
  over_custom_provider_quota: 400,
  conflict: 400,
  saml_provider_disabled: 404,
  manual_linking_disabled: 404,
  web3_provider_disabled: 422,
  web3_unsupported_chain: 400,
  passkey_disabled: 404,
  feature_disabled: 404,
  provider_disabled: 400,
  mfa_totp_enroll_not_enabled: 422,
  mfa_phone_enroll_not_enabled: 422,
  mfa_webauthn_enroll_not_enabled: 422,
  mfa_factor_not_found: 404,
  mfa_totp_verify_not_enabled: 422,
  mfa_phone_verify_not_enabled: 422,
  mfa_factor_name_conflict: 422,
  mfa_verified_factor_exists: 422,
  too_many_enrolled_mfa_factors: 422,
  insufficient_aal: 422,
  mfa_ip_address_mismatch: 422,
  mfa_challenge_expired: 422,
  mfa_verification_failed: 422,
  mfa_verification_rejected: 403,
  mfa_webauthn_verify_not_enabled: 422,
  too_many_passkeys: 422,
  webauthn_challenge_not_found: 400,
  webauthn_challenge_expired: 400,
  webauthn_verification_failed: 400,
  webauthn_credential_exists: 422,
  oauth_client_not_found: 404,
  oauth_authorization_not_found: 404,
  oauth_consent_not_found: 404,
  // RFC 6749 5.2: a client that failed to authenticate is 401, every other token error 400.
  invalid_client: 401,
  invalid_grant: 400,
  unsupported_grant_type: 400,
  access_denied: 400,
  oauth_dynamic_client_registration_disabled: 403,
  hook_timeout: 422,
  hook_timeout_after_retry: 422,
  hook_payload_over_size_limit: 422,
  hook_payload_invalid_content_type: 400,
  // A hook's own error carries the status it chose (hookStatus); this is for one without.
  unknown: 500,
} satisfies Record<ErrorCode, ContentfulStatusCode>;

/** Cases of a code that GoTrue answers with another status than the code's (see ErrorCase). */
const BY_CASE = {
  // Its auth middleware refuses a token whose user or session is gone as forbidden, whatever route is behind it.
  token_holder_gone: 403,
  anonymous_caller: 403,
  password_without_address: 422,
  phone_already_registered: 400,
  // An id in the path that cannot name anything: the resource is not found.
  malformed_id: 404,
  unknown_challenge: 422,
  unknown_passkey: 404,
  sso_user_passkey: 422,
} satisfies Record<ErrorCase, ContentfulStatusCode>;

/** Endpoints whose handler in GoTrue answers a code with another status than elsewhere. */
export const BY_ENDPOINT: Partial<Record<Endpoint, Partial<Record<ErrorCode, ContentfulStatusCode>>>> = {
  "POST /token": { user_banned: 400, email_provider_disabled: 422, phone_provider_disabled: 422 },
  "POST /otp": { email_provider_disabled: 422 },
  "POST /magiclink": { email_provider_disabled: 422 },
  "GET /reauthenticate": { email_not_confirmed: 422, phone_not_confirmed: 422 },
  // GoTrue's enroll refuses an aal1 session as forbidden and PUT /user as unauthorized; unenrolling answers 422.
  "POST /factors": { insufficient_aal: 403 },
  "PUT /user": { insufficient_aal: 401 },
  // The passkey handlers refuse as forbidden: an aal1 session changing passkeys, an unconfirmed or banned user.
  "POST /passkeys/registration/options": { insufficient_aal: 403 },
  "POST /passkeys/registration/verify": { insufficient_aal: 403 },
  "DELETE /passkeys/:passkey_id": { insufficient_aal: 403 },
  "POST /passkeys/authentication/verify": { email_not_confirmed: 403, phone_not_confirmed: 403 },
  // An unknown client at the authorization endpoint is a bad request (never redirected), as GoTrue answers it.
  "GET /oauth/authorize": { oauth_client_not_found: 400 },
};

/** The status of `error` raised while serving `endpoint` (none when no endpoint matched). */
export function statusOf(error: AuthError, endpoint?: Endpoint): ContentfulStatusCode {
  if (error.hookStatus !== undefined) return error.hookStatus as ContentfulStatusCode;
  if (error.case !== undefined) return BY_CASE[error.case];
  return (endpoint && BY_ENDPOINT[endpoint]?.[error.code]) ?? BY_CODE[error.code];
}

/** Codes answered in the OAuth shape `{error, error_description}` (RFC 6749 5.2), with their status. */
export const oauthShaped: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unsupported_grant_type",
  "access_denied",
]);
