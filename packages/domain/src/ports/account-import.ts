import type { AuditEntry } from "../model/audit.ts";
import type { RefreshToken } from "../model/refresh-token.ts";
import type { Session } from "../model/session.ts";
import type { SsoProvider } from "../model/sso-provider.ts";
import type { User } from "../model/user.ts";
import type { Passkey } from "../model/webauthn.ts";

/**
 * One account brought from another system: the user with its identities and factors (TOTP secrets sealed with this
 * server's FactorSecrets), its passkeys, and its live sessions with the digests of their refresh tokens, every token
 * of each session so that a replayed old one is detected as reuse.
 */
export interface ImportedAccount {
  readonly user: User;
  readonly passkeys: readonly Passkey[];
  readonly sessions: readonly ImportedSession[];
}

export interface ImportedSession {
  readonly session: Session;
  readonly refreshTokens: readonly RefreshToken[];
}

/** How many rows of each kind a batch came to in one of the outcomes of ImportBatchReport. */
export interface ImportedCounts {
  readonly users: number;
  readonly identities: number;
  readonly factors: number;
  readonly passkeys: number;
  readonly sessions: number;
  readonly refreshTokens: number;
}

export interface ImportBatchReport {
  /** Rows new here, or replaced by what the source has now. */
  readonly written: ImportedCounts;
  /** Rows already here as the source has them (an earlier run brought them): left alone. */
  readonly unchanged: ImportedCounts;
  /**
   * Rows already here and changed here since (their updated_at is later): kept as they are. A refresh token is kept
   * when its session is: the session here has moved on from the source's.
   */
  readonly kept: ImportedCounts;
  /**
   * Accounts not written, with why (an address another user here has, an identity or a credential another user
   * holds, …).
   */
  readonly skipped: readonly { readonly userId: string; readonly reason: string }[];
}

/**
 * What bringing SSO providers came to. (Not exported from the domain's index, whose export list is not this port's
 * to change: its users name it as `Awaited<ReturnType<AccountImportTarget["writeSsoProviders"]>>`.)
 */
interface SsoProviderImportReport {
  /** Providers new here, with their domains. */
  readonly written: number;
  /** Providers already here with the same id (an earlier run brought them, or an admin made them): left as they are. */
  readonly alreadyHere: number;
  /** Providers not written, with why: their EntityID, a domain or their resource id is another provider's here. */
  readonly skipped: readonly { readonly providerId: string; readonly reason: string }[];
}

/**
 * Writes imported accounts. A batch is one transaction; a row already here is updated only when the imported one is
 * newer (updated_at), so running an import again updates what changed at the source and keeps what changed here.
 * An account that cannot be written (its address or identity belongs to another user here) is skipped with its
 * reason, and never stops the others.
 */
export interface AccountImportTarget {
  write(accounts: readonly ImportedAccount[]): Promise<ImportBatchReport>;
  /** What `write` would do, writing nothing: the dry run. */
  check(accounts: readonly ImportedAccount[]): Promise<ImportBatchReport>;
  /**
   * Adds SSO providers (each with its domains, in a transaction of its own) before their users are written: one of
   * the same id here is left as it is, and one whose EntityID, a domain (without regard to case) or resource id
   * another provider here holds is skipped with why, never stopping the others. Ids are kept, so that SSO users'
   * identities (`sso:<provider id>`) still name their provider.
   */
  writeSsoProviders(providers: readonly SsoProvider[]): Promise<SsoProviderImportReport>;
  /** What `writeSsoProviders` would do, writing nothing: the dry run. */
  checkSsoProviders(providers: readonly SsoProvider[]): Promise<SsoProviderImportReport>;
  /** Adds audit entries not here yet (by id), in one transaction; returns how many were new. */
  writeAudit(entries: readonly AuditEntry[]): Promise<number>;
}
