import type { Identity, Metadata } from "@latchkey/domain";
import type { IdentitiesTable } from "../schema/identities.ts";
import { fromOptionalTimestampJson, fromTimestampJson } from "./timestamp-json.ts";

export type IdentityRow = IdentitiesTable["$inferSelect"];

/** An identity as `json_agg` renders its row: column names as keys, timestamps as ISO 8601 strings. */
export interface IdentityJson {
  readonly id: string;
  readonly user_id: string;
  readonly provider: string;
  readonly provider_id: string;
  readonly identity_data: Metadata;
  readonly last_sign_in_at: string | null;
  readonly created_at: string;
  readonly updated_at: string;
}

/** The identity's columns. */
export function toIdentityRow(identity: Identity): IdentityRow {
  return {
    id: identity.id,
    userId: identity.userId,
    provider: identity.provider,
    providerId: identity.providerId,
    identityData: identity.identityData,
    lastSignInAt: identity.lastSignInAt,
    createdAt: identity.createdAt,
    updatedAt: identity.updatedAt,
  };
}

/** The domain's Identity from its json_agg rendering. */
export function fromIdentityJson(json: IdentityJson): Identity {
  return {
    id: json.id,
    userId: json.user_id,
    provider: json.provider,
    providerId: json.provider_id,
    identityData: json.identity_data,
    lastSignInAt: fromOptionalTimestampJson(json.last_sign_in_at),
    createdAt: fromTimestampJson(json.created_at),
    updatedAt: fromTimestampJson(json.updated_at),
  };
}
