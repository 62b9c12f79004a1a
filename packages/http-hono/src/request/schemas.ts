import * as v from "valibot";

/** JSON null reads as absent, as Go decodes it into a zero value. */
const absentIfNull = <S extends v.GenericSchema>(schema: S) =>
  v.optional(
    v.pipe(
      v.nullable(schema),
      v.transform((value) => value ?? undefined),
    ),
  );

const MAX_METADATA_DEPTH = 32;
/** Longer than any field of the API needs (a password is at most 1024, an id token a few KiB). */
const MAX_TEXT_LENGTH = 16_384;

/** Text PostgreSQL can store: well-formed UTF-16 (no lone surrogates) without NUL characters. */
const storable = (text: string) => text.isWellFormed() && !text.includes("\u0000");
const UNSTORABLE = "must not contain NUL characters or unpaired surrogates";

/** A string field: storable, and of a sane length, whatever the route does with it. */
const text = absentIfNull(
  v.pipe(
    v.string(),
    v.check(storable, UNSTORABLE),
    v.maxLength(MAX_TEXT_LENGTH, `must be at most ${MAX_TEXT_LENGTH} characters`),
  ),
);

/**
 * Why a JSON value cannot be kept as metadata, or null. Walks level by level, never recursing, so hostile nesting
 * cannot exhaust the stack.
 */
function unstorable(value: unknown, maxDepth: number): string | null {
  let level: unknown[] = [value];
  for (let depth = 0; level.length > 0; depth++) {
    const next: unknown[] = [];
    for (const item of level) {
      if (typeof item === "string" && !storable(item)) return UNSTORABLE;
      if (item === null || typeof item !== "object") continue;
      if (depth >= maxDepth) return `must not be nested more than ${maxDepth} levels deep`;
      for (const [key, child] of Object.entries(item)) {
        if (!storable(key)) return UNSTORABLE;
        next.push(child);
      }
    }
    level = next;
  }
  return null;
}

/** A JSON object of the caller's own data that storage and clients handle: bounded nesting, storable text. */
const metadata = absentIfNull(
  v.pipe(
    v.unknown(),
    // valibot's record would take an array as an object of its indices; Go cannot decode one into a map.
    v.check((value) => !Array.isArray(value), "must be a JSON object"),
    v.record(v.string(), v.unknown()),
    v.rawCheck(({ dataset, addIssue }) => {
      const problem = dataset.typed ? unstorable(dataset.value, MAX_METADATA_DEPTH) : null;
      if (problem) addIssue({ message: problem });
    }),
  ),
);

/** What auth-js wraps a captcha token in. */
const security = absentIfNull(v.object({ captcha_token: text }));

export const SignupBody = v.object({
  email: text,
  phone: text,
  password: text,
  data: metadata,
  channel: text,
  code_challenge: text,
  code_challenge_method: text,
  gotrue_meta_security: security,
});

export const PasswordGrantBody = v.object({
  email: text,
  phone: text,
  password: text,
  gotrue_meta_security: security,
});

export const RefreshGrantBody = v.object({ refresh_token: text });

export const UpdateUserBody = v.object({
  email: text,
  phone: text,
  password: text,
  data: metadata,
  nonce: text,
  current_password: text,
  channel: text,
  code_challenge: text,
  code_challenge_method: text,
});

const pkce = { code_challenge: text, code_challenge_method: text };

export const OtpBody = v.object({
  email: text,
  phone: text,
  create_user: absentIfNull(v.boolean()),
  data: metadata,
  channel: text,
  ...pkce,
  gotrue_meta_security: security,
});

export const MagicLinkBody = v.object({ email: text, data: metadata, ...pkce, gotrue_meta_security: security });

export const RecoverBody = v.object({ email: text, ...pkce, gotrue_meta_security: security });

export const ResendBody = v.object({ type: text, email: text, phone: text, ...pkce, gotrue_meta_security: security });

export const InviteBody = v.object({ email: text, data: metadata });

export const VerifyBody = v.object({
  type: text,
  token: text,
  token_hash: text,
  email: text,
  phone: text,
  redirect_to: text,
  password: text,
});

export const PkceGrantBody = v.object({ auth_code: text, code_verifier: text });

const flag = absentIfNull(v.boolean());

/** POST /token?grant_type=id_token, as auth-js's signInWithIdToken and linkIdentity({ token }) send it. */
export const IdTokenGrantBody = v.object({
  id_token: text,
  access_token: text,
  nonce: text,
  provider: text,
  client_id: text,
  issuer: text,
  link_identity: flag,
});

/** POST /token?grant_type=web3 (signInWithWeb3): the chain, the signed message and its signature. */
export const Web3GrantBody = v.object({
  chain: text,
  message: text,
  signature: text,
});

/** POST /admin/users and PUT /admin/users/<id>, as the admin client sends them. */
export const AdminUserBody = v.object({
  id: text,
  aud: text,
  role: text,
  email: text,
  phone: text,
  password: text,
  password_hash: text,
  email_confirm: flag,
  phone_confirm: flag,
  user_metadata: metadata,
  app_metadata: metadata,
  ban_duration: text,
});

export const AdminDeleteUserBody = v.object({ should_soft_delete: flag });

/** auth-js spreads the link options into the body: `redirectTo` arrives camel-cased beside our snake-cased key. */
export const GenerateLinkBody = v.object({
  type: text,
  email: text,
  new_email: text,
  password: text,
  data: metadata,
  redirect_to: text,
  redirectTo: text,
});

export const EnrollFactorBody = v.object({ factor_type: text, friendly_name: text, issuer: text, phone: text });
/** auth-js sends its whole params object, `factorId` included, which is ignored. */
export const ChallengeFactorBody = v.object({ channel: text });
/**
 * A WebAuthn factor's answer (auth-js also sends `rpId` and `rpOrigins`, which are ignored: the relying party is the
 * server's WEBAUTHN_RP_* settings, as in GoTrue). The credential is the browser's JSON, read by the ceremony.
 */
const WebAuthnAnswer = absentIfNull(v.object({ type: text, credential_response: v.optional(v.unknown()) }));
export const VerifyFactorBody = v.object({ challenge_id: text, code: text, webauthn: WebAuthnAnswer });
/** A passkey ceremony's answer: the challenge's id and the browser's credential JSON, read by the ceremony. */
export const PasskeyAnswerBody = v.object({ challenge_id: text, credential: v.optional(v.unknown()) });
export const PasskeyUpdateBody = v.object({ friendly_name: text });

/**
 * A list of strings, each storable and of a sane length, at most 100 of them: RFC 7591's arrays (`redirect_uris`,
 * `grant_types`), a SAML provider's domains.
 */
const textList = absentIfNull(
  v.pipe(v.array(v.pipe(v.string(), v.check(storable, UNSTORABLE), v.maxLength(MAX_TEXT_LENGTH))), v.maxLength(100)),
);

/** An OAuth client's metadata (RFC 7591, GoTrue's subset), at registration and update. */
export const OAuthClientBody = v.object({
  redirect_uris: textList,
  client_type: text,
  token_endpoint_auth_method: text,
  grant_types: textList,
  client_name: text,
  client_uri: text,
  logo_uri: text,
});
export const AdminFactorBody = v.object({ friendly_name: text, phone: text });

/** An IdP's metadata document: larger than other text (Entra ID's runs to tens of KiB), bounded by the body's cap. */
const metadataXml = absentIfNull(v.pipe(v.string(), v.check(storable, UNSTORABLE)));

/** A claim's rule in a SAML provider's attribute_mapping; its default any JSON value storage can keep. */
const attributeRule = v.object({
  name: text,
  names: textList,
  default: v.pipe(
    v.optional(v.unknown()),
    v.check((value) => unstorable(value, MAX_METADATA_DEPTH) === null, UNSTORABLE),
  ),
  array: absentIfNull(v.boolean()),
});

/** A SAML identity provider, as an admin creates or updates it (/admin/sso/providers). */
export const SsoBody = v.object({
  provider_id: text,
  domain: text,
  redirect_to: text,
  skip_http_redirect: absentIfNull(v.boolean()),
  ...pkce,
  gotrue_meta_security: security,
});

export const SsoProviderBody = v.object({
  type: text,
  metadata_url: text,
  metadata_xml: metadataXml,
  domains: textList,
  attribute_mapping: absentIfNull(
    v.object({ keys: absentIfNull(v.record(v.pipe(v.string(), v.check(storable, UNSTORABLE)), attributeRule)) }),
  ),
  name_id_format: text,
  resource_id: text,
  disabled: absentIfNull(v.boolean()),
});

/** A custom OAuth/OIDC provider (/admin/custom-providers), at creation and update. */
export const CustomProviderBody = v.object({
  provider_type: text,
  identifier: text,
  name: text,
  client_id: text,
  client_secret: text,
  acceptable_client_ids: textList,
  scopes: textList,
  pkce_enabled: flag,
  attribute_mapping: metadata,
  custom_claims_allowlist: textList,
  authorization_params: metadata,
  enabled: flag,
  email_optional: flag,
  issuer: text,
  discovery_url: text,
  skip_nonce_check: flag,
  authorization_url: text,
  token_url: text,
  userinfo_url: text,
  jwks_uri: text,
});

/** POST /oauth/authorizations/<id>/consent: `approve` or `deny`. */
export const ConsentBody = v.object({ action: v.optional(v.nullable(v.string())) });
