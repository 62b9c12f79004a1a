// The shapes of the API's answers the console reads (GoTrue's, as the admin API presents them).

interface Identity {
  readonly identity_id?: string;
  readonly id: string;
  readonly provider: string;
  readonly email?: string;
  readonly created_at?: string;
  readonly last_sign_in_at?: string;
}

export interface Factor {
  readonly id: string;
  readonly friendly_name?: string;
  readonly factor_type: string;
  readonly status: string;
  readonly created_at: string;
}

export interface User {
  readonly id: string;
  readonly email?: string;
  readonly phone?: string;
  readonly role?: string;
  readonly created_at: string;
  readonly last_sign_in_at?: string | null;
  readonly email_confirmed_at?: string | null;
  readonly phone_confirmed_at?: string | null;
  readonly banned_until?: string | null;
  readonly deleted_at?: string | null;
  readonly is_anonymous?: boolean;
  readonly app_metadata: Record<string, unknown> & { providers?: string[] };
  readonly user_metadata: Record<string, unknown>;
  readonly identities?: Identity[];
  readonly factors?: Factor[];
}

export interface Passkey {
  readonly id: string;
  readonly friendly_name?: string;
  readonly created_at: string;
  readonly last_used_at?: string;
}

export interface Session {
  readonly id: string;
  readonly created_at: string;
  readonly updated_at?: string;
  readonly refreshed_at?: string | null;
  readonly not_after?: string | null;
  readonly aal?: string;
  readonly factor_id?: string | null;
  readonly user_agent?: string | null;
  readonly ip?: string | null;
}

export interface AuditEntry {
  readonly id: string;
  readonly created_at: string;
  readonly ip_address: string;
  readonly payload: {
    readonly actor_id?: string;
    readonly actor_username?: string;
    readonly action: string;
    readonly log_type?: string;
    readonly traits?: Record<string, unknown>;
  };
}
