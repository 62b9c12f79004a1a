import type { PublicSettings } from "@latchkey/http-hono";
import type { Config } from "./config/index.ts";

/** Providers Supabase lists in /settings that Latchkey does not offer: always off. */
const UNOFFERED = ["fly", "kakao", "linkedin_oidc", "slack_oidc", "zoom"] as const;

export function publicSettings(config: Config): PublicSettings {
  const providers = Object.entries(config.external).map(([name, provider]) => [name, provider.enabled] as const);
  return {
    external: Object.fromEntries([
      ["anonymous_users", config.signup.anonymousEnabled],
      ["email", config.signup.emailEnabled],
      ["phone", config.signup.phoneEnabled],
      ...providers,
      ...UNOFFERED.map((name) => [name, false] as const),
    ]),
    disableSignup: config.signup.disabled,
    mailerAutoconfirm: config.mailer.autoconfirm,
    phoneAutoconfirm: config.sms.autoconfirm,
    smsProvider: config.sms.provider?.name ?? "",
  };
}
