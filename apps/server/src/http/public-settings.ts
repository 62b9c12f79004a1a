import { OAUTH_PROVIDERS } from "@latchkey/adapters-oauth";
import type { PublicSettings } from "@latchkey/http-hono";
import type { Config } from "../config/index.ts";

/**
 * Providers Supabase lists in /settings that Latchkey does not have: reported off, so clients read the shape they
 * know. /settings says only what works.
 */
const OTHER_SUPABASE_PROVIDERS = ["fly", "kakao", "zoom"] as const;

export function publicSettings(config: Config): PublicSettings {
  return {
    external: Object.fromEntries([
      ["anonymous_users", config.signup.anonymousEnabled],
      ["email", config.signup.emailEnabled],
      ["phone", config.signup.phoneEnabled],
      ...OTHER_SUPABASE_PROVIDERS.map((name) => [name, false] as const),
      // Ours: Supabase Auth's /settings does not list the Web3 chains; their switches are named so.
      ["web3_solana", config.web3.solanaEnabled],
      ["web3_ethereum", config.web3.ethereumEnabled],
      // Enabled means configured: the start refuses an enabled provider whose required settings are missing.
      ...OAUTH_PROVIDERS.flatMap(({ name, alias }) => {
        const enabled = config.external[name].enabled;
        return alias === undefined ? [[name, enabled] as const] : [[name, enabled] as const, [alias, enabled] as const];
      }),
    ]),
    disableSignup: config.signup.disabled,
    mailerAutoconfirm: config.mailer.autoconfirm,
    phoneAutoconfirm: config.sms.autoconfirm,
    smsProvider: config.sms.provider ?? "",
    passkeysEnabled: config.passkey.enabled,
    samlEnabled: config.saml.enabled,
    samlPrivateKeyNextConfigured: config.saml.enabled && config.saml.privateKeyNext !== undefined,
  };
}
