import { describe, expect, it } from "vitest";
import { aSession } from "../testing/builders.ts";
import { decideRefresh, type RefreshToken } from "./refresh-token.ts";

const token = (id: string): RefreshToken => ({
  id,
  sessionId: "s",
  parentId: null,
  tokenHash: `h-${id}`,
  createdAt: new Date(0),
});
const rotatedAt = new Date("2026-01-01T00:00:00Z");
const after = (seconds: number) => new Date(rotatedAt.getTime() + seconds * 1000);
const session = aSession("u", { refreshTokenId: "current", previousRefreshTokenId: "previous", rotatedAt });
const enabled = { rotationEnabled: true, reuseIntervalSeconds: 10 };

describe("the refresh-token state table", () => {
  it("rotates the valid token", () => {
    expect(decideRefresh(session, token("current"), after(3600), enabled)).toEqual({ kind: "rotate" });
  });

  it("answers the immediately previous token with the current one, within the reuse interval only", () => {
    expect(decideRefresh(session, token("previous"), after(0), enabled)).toEqual({ kind: "return_current" });
    expect(decideRefresh(session, token("previous"), after(9.999), enabled)).toEqual({ kind: "return_current" });
    expect(decideRefresh(session, token("previous"), after(10), enabled)).toEqual({
      kind: "reuse_detected",
      revokeFamily: true,
    });
  });

  it("treats any older token as a replay that revokes the family", () => {
    expect(decideRefresh(session, token("grandparent"), after(1), enabled)).toEqual({
      kind: "reuse_detected",
      revokeFamily: true,
    });
  });

  it("gives nothing back from a family already revoked", () => {
    const revoked = { ...session, refreshTokenId: null, previousRefreshTokenId: null };
    expect(decideRefresh(revoked, token("current"), after(1), enabled).kind).toBe("reuse_detected");
  });

  it("with a zero interval, never answers a revoked token", () => {
    expect(decideRefresh(session, token("previous"), after(0), { ...enabled, reuseIntervalSeconds: 0 }).kind).toBe(
      "reuse_detected",
    );
  });

  it("without rotation enabled, refuses a replay but revokes nothing", () => {
    const disabled = { ...enabled, rotationEnabled: false };
    expect(decideRefresh(session, token("grandparent"), after(1), disabled)).toEqual({
      kind: "reuse_detected",
      revokeFamily: false,
    });
    expect(decideRefresh(session, token("current"), after(1), disabled)).toEqual({ kind: "rotate" });
  });
});
