import type { RefreshToken } from "@latchkey/domain";
import type { RefreshTokensTable } from "../schema/refresh-tokens.ts";
import { fromTimestampJson } from "./timestamp-json.ts";

export type RefreshTokenRow = RefreshTokensTable["$inferSelect"];

/** A refresh token as `row_to_json` renders its row: column names as keys, timestamps as ISO 8601 strings. */
export interface RefreshTokenJson {
  readonly id: string;
  readonly session_id: string;
  readonly parent_id: string | null;
  readonly token_hash: string;
  readonly created_at: string;
}

/** The token's columns. */
export function toRefreshTokenRow(token: RefreshToken): RefreshTokenRow {
  return {
    id: token.id,
    sessionId: token.sessionId,
    parentId: token.parentId,
    tokenHash: token.tokenHash,
    createdAt: token.createdAt,
  };
}

/** The domain's RefreshToken from its row. */
export function fromRefreshTokenRow(row: RefreshTokenRow): RefreshToken {
  return { ...row };
}

/** The token's columns from their `row_to_json` rendering. */
export function fromRefreshTokenJson(json: RefreshTokenJson): RefreshTokenRow {
  return {
    id: json.id,
    sessionId: json.session_id,
    parentId: json.parent_id,
    tokenHash: json.token_hash,
    createdAt: fromTimestampJson(json.created_at),
  };
}
