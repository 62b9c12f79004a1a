import { describe, expect, it } from "vitest";
import { isAuthError } from "../errors.ts";
import { aSession, aUser } from "../testing/builders.ts";
import { buildAccessTokenClaims, readTokenSubject } from "./access-token-claims.ts";

describe("access token claims", () => {
  it("carry GoTrue's claims, with the session's aal and amr in unix seconds", () => {
    const user = aUser({ phone: "+15550001111", userMetadata: { name: "Ada" } });
    const amrAt = new Date("2026-01-01T00:00:00.900Z");
    const session = aSession(user.id, { amr: [{ method: "password", at: amrAt }] });
    const now = new Date("2026-01-01T00:00:01.500Z");
    expect(
      buildAccessTokenClaims(user, session, now, { expSeconds: 3600, issuer: "https://auth.example.com" }),
    ).toEqual({
      iss: "https://auth.example.com",
      sub: user.id,
      aud: "authenticated",
      iat: 1767225601,
      exp: 1767225601 + 3600,
      email: user.email,
      phone: "+15550001111",
      app_metadata: user.appMetadata,
      user_metadata: { name: "Ada" },
      role: "authenticated",
      aal: "aal1",
      amr: [{ method: "password", timestamp: 1767225600 }],
      session_id: session.id,
      is_anonymous: false,
    });
  });

  it("name their subject, or fail as bad_jwt", () => {
    const sub = "6f1c5b9e-3f4a-4c1d-9a7e-2b8c0d1e2f3a";
    expect(readTokenSubject({ sub, session_id: sub, role: "authenticated" })).toEqual({
      userId: sub,
      sessionId: sub,
      role: "authenticated",
    });
    expect(readTokenSubject({ sub, role: "service_role" })).toEqual({
      userId: sub,
      sessionId: null,
      role: "service_role",
    });
    for (const claims of [{}, { sub: "" }, { sub: "not-a-uuid" }, { sub, session_id: "nope" }]) {
      let error: unknown;
      try {
        readTokenSubject(claims);
      } catch (caught) {
        error = caught;
      }
      expect(isAuthError(error, "bad_jwt")).toBe(true);
    }
  });
});
