import type { RefreshToken } from "@latchkey/domain";
import type { RefreshTokensTable } from "../schema/refresh-tokens.ts";

export type RefreshTokenRow = RefreshTokensTable["$inferSelect"];

/** The token's columns. */
export function toRefreshTokenRow(token: RefreshToken): RefreshTokenRow {
  return { id: token.id, sessionId: token.sessionId, parentId: token.parentId, tokenHash: token.tokenHash, createdAt: token.createdAt };
}

/** The domain's RefreshToken from its row. */
export function fromRefreshTokenRow(row: RefreshTokenRow): RefreshToken {
  return { ...row };
}
