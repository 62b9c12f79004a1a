import type { Aal, Session } from "@latchkey/domain";
import type { AmrJson, SessionsTable } from "../schema/sessions.ts";
import { fromOptionalTimestampJson, fromTimestampJson } from "./timestamp-json.ts";

export type SessionRow = SessionsTable["$inferSelect"];

/** A session as `row_to_json` renders its row: column names as keys, timestamps as ISO 8601 strings. */
export interface SessionJson {
  readonly id: string;
  readonly user_id: string;
  readonly aal: Aal;
  readonly amr: AmrJson[];
  readonly refresh_token_id: string | null;
  readonly previous_refresh_token_id: string | null;
  readonly rotated_at: string | null;
  readonly ip: string | null;
  readonly user_agent: string | null;
  readonly not_after: string | null;
  readonly created_at: string;
  readonly updated_at: string;
  readonly factor_id: string | null;
  readonly oauth_client_id: string | null;
  readonly scopes: string | null;
}

/** The session's columns; amr times as ISO 8601 strings inside the jsonb. */
export function toSessionRow(session: Session): SessionRow {
  return {
    id: session.id,
    userId: session.userId,
    aal: session.aal,
    amr: session.amr.map((entry) => ({ method: entry.method, at: entry.at.toISOString() })),
    refreshTokenId: session.refreshTokenId,
    previousRefreshTokenId: session.previousRefreshTokenId,
    rotatedAt: session.rotatedAt,
    ip: session.ip,
    userAgent: session.userAgent,
    notAfter: session.notAfter,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    factorId: session.factorId,
    oauthClientId: session.oauthClientId,
    scopes: session.scopes,
  };
}

/** The methods of a session's amr with their times, from the jsonb (times as ISO 8601 strings). */
const fromAmrJson = (amr: readonly AmrJson[]) => amr.map((entry) => ({ method: entry.method, at: new Date(entry.at) }));

/** The domain's Session from its row. */
export function fromSessionRow(row: SessionRow): Session {
  return { ...row, amr: fromAmrJson(row.amr) };
}

/**
 * The domain's Session from its row's `row_to_json` rendering: built in one object, where going through the row and
 * copying it (fromSessionRow) would build two (every authenticated request decodes its session).
 */
export function fromSessionJson(json: SessionJson): Session {
  return {
    id: json.id,
    userId: json.user_id,
    aal: json.aal,
    amr: fromAmrJson(json.amr),
    refreshTokenId: json.refresh_token_id,
    previousRefreshTokenId: json.previous_refresh_token_id,
    rotatedAt: fromOptionalTimestampJson(json.rotated_at),
    ip: json.ip,
    userAgent: json.user_agent,
    notAfter: fromOptionalTimestampJson(json.not_after),
    createdAt: fromTimestampJson(json.created_at),
    updatedAt: fromTimestampJson(json.updated_at),
    factorId: json.factor_id,
    oauthClientId: json.oauth_client_id,
    scopes: json.scopes,
  };
}
