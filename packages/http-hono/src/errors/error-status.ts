import type { AuthError, ErrorCode } from "@latchkey/domain";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** Where GoTrue raises each code in its core API. Routes override the few places it answers otherwise. */
export const defaultStatus = {
  unexpected_failure: 500,
  validation_failed: 400,
  bad_json: 400,
  request_entity_too_large: 413,
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
  saml_provider_disabled: 404,
  manual_linking_disabled: 404,
  web3_provider_disabled: 422,
  passkey_disabled: 404,
  feature_disabled: 404,
  provider_disabled: 400,
  mfa_totp_enroll_not_enabled: 422,
  mfa_phone_enroll_not_enabled: 422,
  mfa_webauthn_enroll_not_enabled: 422,
  mfa_factor_not_found: 404,
} satisfies Record<ErrorCode, ContentfulStatusCode>;

/** A route's exceptions to the table: a status, or a function of the error for the rare code that needs one. */
export type StatusOverrides = Partial<Record<ErrorCode, ContentfulStatusCode | ((error: AuthError) => ContentfulStatusCode)>>;

export function statusOf(error: AuthError, overrides: StatusOverrides = {}): ContentfulStatusCode {
  const override = overrides[error.code];
  if (typeof override === "function") return override(error);
  return override ?? defaultStatus[error.code];
}

/** Codes answered in the OAuth shape `{error, error_description}`, always with status 400. */
export const oauthShaped: ReadonlySet<ErrorCode> = new Set<ErrorCode>(["invalid_request"]);
