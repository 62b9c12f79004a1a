import type { OAuthConsent } from "@latchkey/domain";
import type { OAuthConsentsTable } from "../schema/oauth-consents.ts";

export type OAuthConsentRow = OAuthConsentsTable["$inferSelect"];

/** The consent's columns: the domain's fields, one to one. */
export function toOAuthConsentRow(consent: OAuthConsent): OAuthConsentRow {
  return {
    id: consent.id,
    userId: consent.userId,
    clientId: consent.clientId,
    scopes: [...consent.scopes],
    grantedAt: consent.grantedAt,
    revokedAt: consent.revokedAt,
  };
}

/** The domain's OAuthConsent from its row. */
export function fromOAuthConsentRow(row: OAuthConsentRow): OAuthConsent {
  return {
    id: row.id,
    userId: row.userId,
    clientId: row.clientId,
    scopes: row.scopes,
    grantedAt: row.grantedAt,
    revokedAt: row.revokedAt,
  };
}
