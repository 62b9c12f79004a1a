import type { PublicSettings } from "@latchkey/http-hono";
import type { Config } from "../config/index.ts";

/**
 * The OAuth providers Supabase lists in /settings. Latchkey has no OAuth sign-in yet, so each is reported off:
 * /settings says only what works, and keeps the shape clients read.
 */
const OAUTH_PROVIDERS = [
  "apple",
  "azure",
  "bitbucket",
  "discord",
  "facebook",
  "figma",
  "fly",
  "github",
  "gitlab",
  "google",
  "kakao",
  "keycloak",
  "linkedin",
  "linkedin_oidc",
  "notion",
  "slack",
  "slack_oidc",
  "snapchat",
  "spotify",
  "twitch",
  "twitter",
  "workos",
  "zoom",
] as const;

export function publicSettings(config: Config): PublicSettings {
  return {
    external: Object.fromEntries([
      ["anonymous_users", config.signup.anonymousEnabled],
      ["email", config.signup.emailEnabled],
      ["phone", config.signup.phoneEnabled],
      ...OAUTH_PROVIDERS.map((name) => [name, false] as const),
    ]),
    disableSignup: config.signup.disabled,
    mailerAutoconfirm: config.mailer.autoconfirm,
    phoneAutoconfirm: config.sms.autoconfirm,
    smsProvider: config.sms.provider ?? "",
  };
}
