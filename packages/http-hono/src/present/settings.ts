/** What GET /settings may tell anyone: switches, never secrets. */
export interface PublicSettings {
  /** Provider name to enabled, including `email`, `phone` and `anonymous_users`. */
  readonly external: Readonly<Record<string, boolean>>;
  readonly disableSignup: boolean;
  readonly mailerAutoconfirm: boolean;
  readonly phoneAutoconfirm: boolean;
  readonly smsProvider: string;
  /** PASSKEY_ENABLED */
  readonly passkeysEnabled: boolean;
  /** SAML_ENABLED */
  readonly samlEnabled: boolean;
  /** SAML_PRIVATE_KEY_NEXT is set: a key is rotating in. */
  readonly samlPrivateKeyNextConfigured: boolean;
}

/** The specification's fields (`autoconfirm`) and Supabase's, so both kinds of clients find theirs (docs/compatibility.md). */
export function presentSettings(settings: PublicSettings) {
  return {
    external: settings.external,
    disable_signup: settings.disableSignup,
    autoconfirm: settings.mailerAutoconfirm,
    mailer_autoconfirm: settings.mailerAutoconfirm,
    phone_autoconfirm: settings.phoneAutoconfirm,
    sms_provider: settings.smsProvider,
    saml_enabled: settings.samlEnabled,
    saml_private_key_next_configured: settings.samlPrivateKeyNextConfigured,
    passkeys_enabled: settings.passkeysEnabled,
  };
}
