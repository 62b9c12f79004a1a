import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, TEST_JWT_SECRET, type TestServer } from "../../apps/server/test/support/start-test-server.ts";
import { adminApi, claimsOf, client } from "./support.ts";

// The third attack review's findings outside the OAuth flows (those are in oauth/identity-takeover.test.ts),
// replayed over HTTP with the official client.
const password = "correct horse battery";

describe("the third attack review, over HTTP", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  /** A confirmed account with `password`, signed in through the official client. */
  async function signedIn(email: string) {
    await (await adminApi(server)).createUser({ email, password, email_confirm: true });
    const auth = client(server);
    const { data, error } = await auth.signInWithPassword({ email, password });
    expect(error).toBeNull();
    return { auth, session: data.session! };
  }

  describe("a token re-signed for a foreign audience", () => {
    it("opens no route of the user's and ends no session", async () => {
      const { auth, session } = await signedIn("audience@example.com");
      // Another app that trusts the same secret, or a token minted for it, carries another audience.
      const foreign = await new SignJWT({ ...claimsOf(session.access_token), aud: "evil-audience" })
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .sign(new TextEncoder().encode(TEST_JWT_SECRET));
      const bearer = { authorization: `Bearer ${foreign}` };
      for (const [method, path] of [
        ["POST", "/logout?scope=global"],
        ["GET", "/user"],
        ["PUT", "/user"],
        ["GET", "/reauthenticate"],
        ["POST", "/factors"],
      ] as const) {
        const refused = await server.fetch(path, { method, headers: bearer, json: method === "GET" ? undefined : {} });
        const body = (await refused.json()) as { error_code: string };
        expect([path, refused.status, body.error_code]).toEqual([path, 400, "validation_failed"]);
      }
      // The real session lives on.
      const { data, error } = await auth.refreshSession();
      expect(error).toBeNull();
      expect(data.session?.user.email).toBe("audience@example.com");
    });
  });
});
