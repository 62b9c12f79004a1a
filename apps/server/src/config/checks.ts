import { KeyRingError, parseKeyRing, type SigningAlgorithm } from "@latchkey/adapters-crypto";
import { checkHttpHookSettings, type HttpHookSettingsProblem } from "@latchkey/adapters-hooks";
import { OAUTH_PROVIDER_NAMES } from "@latchkey/adapters-oauth";
import { parseFunctionHookUri } from "@latchkey/adapters-postgres";
import { HOOK_NAMES } from "@latchkey/domain";
import type { Profile } from "./config.ts";
import { displayName, type ResolvedEnv, SETTINGS_BY_KEY } from "./env-names.ts";
import { parseGoBool } from "./env-values.ts";
import { placeholderReason } from "./placeholder-secrets.ts";
import { OTLP_PROTOCOLS, type SettingKey } from "./settings.ts";

// Checks across settings and profiles. They read what was set, not the parsed values, so they run, and report,
// even when some value failed to parse; a value that fails to parse is reported by its schema, not again here.

type Check = (env: ResolvedEnv, profile: Profile, inScope: InScope) => string[];

/** Whether a setting is among those read: a subcommand reads only the groups it needs (load-config.ts). */
export type InScope = (key: SettingKey) => boolean;

const isTrue = (env: ResolvedEnv, key: SettingKey) => {
  const variable = env.get(key);
  return variable !== undefined && parseGoBool(variable.value) === true;
};

/** security: HS256 with a short secret can be brute-forced offline from any issued token; so can a short DB_SECRET from a copy of the database. */
const MIN_PRODUCTION_SECRET_LENGTH = 32;

/** What each setting's declaration requires: in the production profile, or while another setting has a value. */
const requireDeclared: Check = (env, profile, inScope) =>
  [...SETTINGS_BY_KEY].flatMap(([key, declared]) => {
    const required = declared.required;
    if (required === undefined || env.has(key) || !inScope(key)) return [];
    if ("profile" in required) {
      const exempt = required.unless !== undefined && isTrue(env, required.unless.when as SettingKey);
      return required.profile === profile && !exempt ? [`${displayName(env, key)} is required`] : [];
    }
    const other = env.get(required.when as SettingKey);
    const matches =
      other !== undefined &&
      (typeof required.is === "boolean" ? parseGoBool(other.value) === required.is : other.value === required.is);
    return matches ? [`${displayName(env, key)} is required when ${other.name} is ${other.value}`] : [];
  });

/**
 * Multi-instance mode is inherited from GoTrue and not built; ignoring it silently would surprise its users. An
 * OPERATOR_TOKEN alone (Supabase's own compose files still set one) does not ask for it: see configWarnings.
 */
const refuseMultiInstanceMode: Check = (env) => {
  const set = env.has("API_ENDPOINT") ? (["API_ENDPOINT"] as const) : [];
  const enabled = isTrue(env, "MULTI_INSTANCE_MODE") ? (["MULTI_INSTANCE_MODE"] as const) : [];
  const asked = set.length > 0 || enabled.length > 0;
  const token = asked && env.has("OPERATOR_TOKEN") ? (["OPERATOR_TOKEN"] as const) : [];
  return [...token, ...set, ...enabled].map(
    (key) => `${displayName(env, key)}: multi-instance mode is not supported by Latchkey; remove this variable`,
  );
};

/** In production, JWT_SECRET and DB_SECRET must be long, and not a value someone else has published or a placeholder. */
const requireStrongSecrets: Check = (env, profile, inScope) =>
  (["JWT_SECRET", "DB_SECRET"] as const).flatMap((key) => {
    const secret = env.get(key);
    if (profile !== "production" || secret === undefined || !inScope(key)) return [];
    const advice = "generate one with `openssl rand -hex 32`";
    if (secret.value.length < MIN_PRODUCTION_SECRET_LENGTH) {
      return [`${secret.name}: must be at least ${MIN_PRODUCTION_SECRET_LENGTH} characters; ${advice}`];
    }
    const placeholder = placeholderReason(secret.value);
    return placeholder === undefined ? [] : [`${secret.name}: ${placeholder}; ${advice}`];
  });

/** The algorithms JWT_VALID_METHODS names, when it is set and valid. */
function configuredMethods(env: ResolvedEnv): Set<string> | undefined {
  const methods = env.get("JWT_VALID_METHODS");
  return methods === undefined ? undefined : new Set(methods.value.split(",").map((name) => name.trim()));
}

/** The signer's algorithm must be one a token may have, or every token this server signs would be refused. */
const requireSignerAlgorithmValid: Check = (env, profile) => {
  const methods = configuredMethods(env);
  const keys = env.get("JWT_KEYS");
  if (methods === undefined) return [];
  let signer: { alg: SigningAlgorithm; kid: string | undefined };
  if (keys !== undefined) {
    try {
      signer = parseKeyRing(keys.value).signer;
    } catch (error) {
      if (error instanceof KeyRingError) return []; // said by JWT_KEYS's own check
      throw error;
    }
  } else {
    // Without a ring: the development profile's generated RS256 key, else JWT_SECRET.
    signer = { alg: profile === "development" ? "RS256" : "HS256", kid: undefined };
  }
  if (methods.has(signer.alg)) return [];
  const which = signer.kid === undefined ? "the signing key" : `the signing key (kid ${JSON.stringify(signer.kid)})`;
  return [
    `${displayName(env, "JWT_VALID_METHODS")} leaves out ${signer.alg}, the algorithm of ${which}: every token it signs would be refused`,
  ];
};

/**
 * In development, and with the send_email hook on, SMTP is optional, but a half-configured server would fail only
 * at the first email (in production without the hook, each is required anyway).
 */
const requireCompleteSmtpWhereOptional: Check = (env, profile) => {
  const server: readonly SettingKey[] = ["SMTP_HOST", "SMTP_PORT", "SMTP_ADMIN_EMAIL"];
  const given = server.find((key) => env.has(key));
  const optional = profile === "development" || isTrue(env, "HOOK_SEND_EMAIL_ENABLED");
  if (!optional || given === undefined) return [];
  return server
    .filter((key) => !env.has(key))
    .map((key) => `${displayName(env, key)} is required when ${displayName(env, given)} is set`);
};

/** GoTrue refuses the two together: autoconfirm already trusts every address, so the second would mean nothing. */
const refuseAutoconfirmWithUnverifiedSignIns: Check = (env) =>
  isTrue(env, "MAILER_AUTOCONFIRM") && isTrue(env, "MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS")
    ? [
        `${displayName(env, "MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS")} cannot be set with ${displayName(env, "MAILER_AUTOCONFIRM")}`,
      ]
    : [];

/**
 * The OTLP protocol variables are read without a prefix, so other programs may share them: a value is checked only
 * once tracing (or metrics pushed over OTLP) is on, when Latchkey would export with it.
 */
const requireKnownOtlpProtocols: Check = (env) => {
  const traces = isTrue(env, "TRACING_ENABLED");
  const metrics =
    isTrue(env, "METRICS_ENABLED") && (env.get("METRICS_EXPORTER")?.value ?? "opentelemetry") === "opentelemetry";
  const signals = [traces ? "traces" : [], metrics ? "metrics" : []].flat().join(" and ");
  const keys = [
    ...(traces || metrics ? [["OTEL_EXPORTER_OTLP_PROTOCOL", signals] as const] : []),
    ...(traces ? [["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "traces"] as const] : []),
    ...(metrics ? [["OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "metrics"] as const] : []),
  ];
  return keys.flatMap(([key, signal]) => {
    const variable = env.get(key);
    if (variable === undefined || (OTLP_PROTOCOLS as readonly string[]).includes(variable.value)) return [];
    return [
      `${variable.name}: expected one of ${OTLP_PROTOCOLS.join(", ")} (the OTLP protocol ${signal} are exported with), got ${JSON.stringify(variable.value)}`,
    ];
  });
};

/**
 * Whether TOTP factors have a key of their own for their secrets: SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY, else one
 * derived from DB_SECRET. In production, JWT_SECRET (DB_SECRET's stand-in) may not be that key: whoever can read
 * the tokens' key could then read every factor's secret.
 */
function hasFactorSecretKey(env: ResolvedEnv, profile: Profile): boolean {
  return profile !== "production" || env.has("DB_SECRET") || env.has("SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY");
}

const TOTP_SWITCHES = ["MFA_TOTP_ENROLL_ENABLED", "MFA_TOTP_VERIFY_ENABLED"] as const;

/**
 * TOTP asked for explicitly without a key of its own stops the start (left at its default, it is off instead: see
 * configWarnings). A key needs its id, which is stored with what it seals.
 */
const requireFactorSecretKey: Check = (env, profile) => {
  const problems: string[] = [];
  if (env.has("SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY") && !env.has("SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY_ID")) {
    problems.push(
      `${displayName(env, "SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY_ID")} is required when ${displayName(env, "SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY")} is set`,
    );
  }
  if (!hasFactorSecretKey(env, profile)) {
    for (const key of TOTP_SWITCHES.filter((switchKey) => isTrue(env, switchKey))) {
      problems.push(`${displayName(env, key)}: ${NO_FACTOR_KEY(env)}`);
    }
  }
  return problems;
};

const NO_FACTOR_KEY = (env: ResolvedEnv) =>
  `TOTP factors need a key of their own for their secrets, not JWT_SECRET: set ${displayName(env, "DB_SECRET")} ` +
  `(to JWT_SECRET's value, to keep every session and code working) or ` +
  `${displayName(env, "SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY")}`;

/** The origin of a URL, or undefined when it does not parse (its own schema says so). */
function originOf(url: string): string | undefined {
  return URL.canParse(url) ? new URL(url).origin : undefined;
}

/**
 * security: a sign-in through a provider is bound to the browser that started it by a cookie the API sets at
 * /authorize and reads at the callback (docs/compatibility.md, "OAuth sign-ins are bound to the browser"). A
 * callback on another origin would never see that cookie, and every sign-in would fail at its end.
 */
const requireCallbackOnApiOrigin: Check = (env) => {
  const api = env.get("API_EXTERNAL_URL");
  const apiOrigin = api === undefined ? undefined : originOf(api.value);
  if (apiOrigin === undefined) return [];
  return OAUTH_PROVIDER_NAMES.flatMap((provider) => {
    const upper = provider.toUpperCase();
    const redirect = env.get(`EXTERNAL_${upper}_REDIRECT_URI` as SettingKey);
    if (!isTrue(env, `EXTERNAL_${upper}_ENABLED` as SettingKey) || redirect === undefined) return [];
    const origin = originOf(redirect.value);
    return origin === undefined || origin === apiOrigin
      ? []
      : [
          `${redirect.name}: must be on ${api?.name}'s origin (${apiOrigin}), where the cookie that binds a sign-in to its browser is set; got ${origin}`,
        ];
  });
};

/** A check of settings of one group, run only when that group is read (`key` is one of its settings). */
const readingOf =
  (key: SettingKey, check: Check): Check =>
  (env, profile, inScope) =>
    inScope(key) ? check(env, profile, inScope) : [];

/**
 * Each hook's URI and secrets, with GoTrue's rules, whether the hook is on or not (GoTrue checks every URI set):
 * a function's schema and name, an endpoint's scheme (plain http for localhost only) and each secret's form.
 */
const requireValidHooks: Check = (env) =>
  HOOK_NAMES.flatMap((name) => {
    const upper = name.toUpperCase();
    const uri = env.get(`HOOK_${upper}_URI` as SettingKey);
    if (uri === undefined) return [];
    const secrets = env.get(`HOOK_${upper}_SECRETS` as SettingKey);
    const problem = hookProblem(uri.value, secrets?.value);
    if (problem === null) return [];
    const where = problem.setting === "secrets" ? secrets! : uri;
    return [`${where.name}: ${problem.problem}`];
  });

/** What is wrong with one hook's URI or secrets (GoTrue's ValidateExtensibilityPoint), and in which. */
function hookProblem(uri: string, secrets: string | undefined): HttpHookSettingsProblem | null {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(uri)?.[1]?.toLowerCase();
  if (scheme === "pg-functions") {
    const parsed = parseFunctionHookUri(uri);
    if ("problem" in parsed) return { setting: "uri", problem: parsed.problem };
    return secrets === undefined ? null : { setting: "secrets", problem: "a pg-functions:// hook takes no secrets" };
  }
  if (scheme !== "http" && scheme !== "https") {
    return { setting: "uri", problem: "expected pg-functions://postgres/<schema>/<function> or an https:// URL" };
  }
  return checkHttpHookSettings({ uri, secrets: secrets?.split("|").filter((entry) => entry !== "") ?? [] });
}

const WEBAUTHN_SWITCHES = ["PASSKEY_ENABLED", "MFA_WEB_AUTHN_ENROLL_ENABLED", "MFA_WEB_AUTHN_VERIFY_ENABLED"] as const;
const RELYING_PARTY = ["WEBAUTHN_RP_ID", "WEBAUTHN_RP_DISPLAY_NAME", "WEBAUTHN_RP_ORIGINS"] as const;

/**
 * Passkeys and WebAuthn factors need the relying party they are bound to. GoTrue only warns and then fails every
 * ceremony; here the start says so. Each origin must be on the relying party's domain or under it, or browsers
 * refuse every ceremony begun there.
 */
const requireRelyingParty: Check = (env) => {
  const on = WEBAUTHN_SWITCHES.find((key) => isTrue(env, key));
  if (on === undefined) return [];
  const missing = RELYING_PARTY.filter((key) => (env.get(key)?.value.trim() ?? "") === "");
  if (missing.length > 0) {
    return missing.map((key) => `${displayName(env, key)} is required when ${env.get(on)?.name} is true`);
  }
  const rpId = env.get("WEBAUTHN_RP_ID")?.value.trim() ?? "";
  const origins = env.get("WEBAUTHN_RP_ORIGINS");
  const entries = origins?.value.split(",").map((entry) => entry.trim()) ?? [];
  return entries
    .filter((entry) => entry !== "")
    .flatMap((origin) => {
      const problem = relyingPartyOriginProblem(origin, rpId);
      return problem === null ? [] : [`${origins?.name}: ${origin}: ${problem}`];
    });
};

/** What is wrong with one of WEBAUTHN_RP_ORIGINS for the relying party `rpId`, or null. */
function relyingPartyOriginProblem(origin: string, rpId: string): string | null {
  if (!URL.canParse(origin) || new URL(origin).origin !== origin.replace(/\/$/, "")) {
    return "expected an origin: a scheme, a host and an optional port, nothing after (https://app.example.com)";
  }
  const { protocol, hostname } = new URL(origin);
  if (protocol !== "https:" && !(protocol === "http:" && hostname === "localhost")) {
    return "must be https (http only for localhost): browsers run WebAuthn in secure contexts only";
  }
  if (hostname !== rpId && !hostname.endsWith(`.${rpId}`)) {
    return `is not on WEBAUTHN_RP_ID (${rpId}) or under it`;
  }
  return null;
}

const CHECKS: readonly Check[] = [
  readingOf("MFA_TOTP_ENROLL_ENABLED", requireFactorSecretKey),
  readingOf("MULTI_INSTANCE_MODE", refuseMultiInstanceMode),
  requireDeclared,
  requireStrongSecrets,
  readingOf("JWT_VALID_METHODS", requireSignerAlgorithmValid),
  readingOf("SMTP_HOST", requireCompleteSmtpWhereOptional),
  readingOf("MAILER_AUTOCONFIRM", refuseAutoconfirmWithUnverifiedSignIns),
  readingOf("TRACING_ENABLED", requireKnownOtlpProtocols),
  readingOf("EXTERNAL_GITHUB_ENABLED", requireCallbackOnApiOrigin),
  readingOf("HOOK_CUSTOM_ACCESS_TOKEN_URI", requireValidHooks),
  readingOf("PASSKEY_ENABLED", requireRelyingParty),
];

/** Every problem across settings; with `inScope`, only those of the settings read. */
export function checkConsistency(env: ResolvedEnv, profile: Profile, inScope: InScope = () => true): string[] {
  return CHECKS.flatMap((check) => check(env, profile, inScope));
}

/**
 * What the start should say but not refuse: settings accepted that have no effect, and choices whose consequence
 * an operator may not have seen, each named.
 */
export function configWarnings(env: ResolvedEnv, profile: Profile): string[] {
  const warnings: string[] = [];
  if (env.has("OPERATOR_TOKEN") && !env.has("API_ENDPOINT") && !isTrue(env, "MULTI_INSTANCE_MODE")) {
    warnings.push(
      `${displayName(env, "OPERATOR_TOKEN")} is ignored: it belongs to multi-instance mode, which Latchkey does not have`,
    );
  }
  if (configuredMethods(env)?.has("HS256") === false) {
    warnings.push(
      `${displayName(env, "JWT_VALID_METHODS")} leaves out HS256: tokens signed with JWT_SECRET, the anon and service_role keys among them, are refused`,
    );
  }
  if (!hasFactorSecretKey(env, profile) && !TOTP_SWITCHES.some((key) => env.has(key))) {
    warnings.push(`TOTP factors are off. ${NO_FACTOR_KEY(env)}`);
  }
  const readiness = env.get("API_READINESS_DEPENDENCIES");
  const counted = new Set(readiness?.value.split(",").map((name) => name.trim()));
  for (const [name, key] of [
    ["redis", "REDIS_URL"],
    ["smtp", "SMTP_HOST"],
  ] as const) {
    if (readiness !== undefined && counted.has(name) && !env.has(key)) {
      warnings.push(`${readiness.name} names ${name}, which is not checked: ${displayName(env, key)} is unset`);
    }
  }
  if (profile === "production" && !env.has("DB_SECRET")) {
    warnings.push(
      "DB_SECRET is unset, so JWT_SECRET also keys what is stored (refresh tokens, codes, queued mail): changing JWT_SECRET would end every session; set DB_SECRET to JWT_SECRET's value now to keep them apart",
    );
  }
  return warnings;
}
