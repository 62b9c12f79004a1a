import { createHmac } from "node:crypto";
import { newKeyRing, parseKeyRing, withNewKey, withoutKey, withSigner } from "@latchkey/adapters-crypto";
import { randomNamespace } from "@latchkey/adapters-postgres/testing";
import { startTestServer, TEST_JWT_SECRET, type TestServer } from "@latchkey/server/testing";
import { createClient } from "@supabase/supabase-js";
import { decodeProtectedHeader, generateKeyPair, importJWK, jwtVerify, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import ws from "ws";
import { serviceRoleKey } from "./support.ts";

const password = "correct horse battery";
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const kidOf = (ring: string, index = 0) => (JSON.parse(ring) as { kid: string }[])[index]!.kid;

function anonKey(): Promise<string> {
  return new SignJWT({ role: "anon", iss: "supabase" })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setExpirationTime("10y")
    .sign(new TextEncoder().encode(TEST_JWT_SECRET));
}

function supabase(server: TestServer, key: string) {
  return createClient(server.url, key, {
    realtime: { transport: ws as never },
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  });
}

async function bearerStatus(server: TestServer, token: string): Promise<[number, unknown]> {
  const response = await server.fetch("/user", { headers: { authorization: `Bearer ${token}` } });
  return [response.status, ((await response.json()) as Record<string, unknown>)["error_code"] ?? null];
}

describe("an RS256 key ring, through supabase-js", () => {
  const ring = newKeyRing("RS256");
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ AUTH_JWT_KEYS: ring, AUTH_MAILER_AUTOCONFIRM: "true" });
  });
  afterAll(() => server.close());

  it("signs sessions with the ring's key, which getClaims() verifies through the JWKS without asking the server", async () => {
    const client = supabase(server, await anonKey());
    const { data: signedUp, error } = await client.auth.signUp({ email: "rs256@example.com", password });
    expect(error).toBeNull();
    const accessToken = signedUp.session!.access_token;
    expect(decodeProtectedHeader(accessToken)).toEqual({ alg: "RS256", typ: "JWT", kid: kidOf(ring) });

    const { data: user } = await client.auth.getUser();
    expect(user.user?.email).toBe("rs256@example.com");

    const before = server.logLines().filter((line) => line["path"] === "/auth/v1/user").length;
    const { data: claims, error: claimsError } = await client.auth.getClaims();
    expect(claimsError).toBeNull();
    expect(claims?.claims).toMatchObject({ sub: signedUp.user!.id, email: "rs256@example.com", role: "authenticated" });
    expect(claims?.header).toMatchObject({ alg: "RS256", kid: kidOf(ring) });
    const paths = server.logLines().map((line) => line["path"]);
    expect(paths).toContain("/auth/v1/.well-known/jwks.json");
    expect(paths.filter((path) => path === "/auth/v1/user")).toHaveLength(before);

    const { data: refreshed, error: refreshError } = await client.auth.refreshSession();
    expect(refreshError).toBeNull();
    expect(decodeProtectedHeader(refreshed.session!.access_token).kid).toBe(kidOf(ring));
    expect((await client.auth.signInWithPassword({ email: "rs256@example.com", password })).error).toBeNull();
  });

  it("serves the admin API to the HS256 service_role key signed with JWT_SECRET", async () => {
    const admin = supabase(server, await serviceRoleKey()).auth.admin;
    const { data, error } = await admin.createUser({ email: "made-by-admin@example.com", email_confirm: true });
    expect(error).toBeNull();
    expect((await admin.getUserById(data.user!.id)).data.user?.email).toBe("made-by-admin@example.com");
  });

  it("publishes the public key, cacheable, and where to find it", async () => {
    const jwks = await server.fetch("/.well-known/jwks.json");
    expect(jwks.headers.get("cache-control")).toBe("public, max-age=600");
    const { keys } = (await jwks.json()) as { keys: Record<string, unknown>[] };
    expect(keys).toEqual([parseKeyRing(ring).signer.publicJwk]);
    for (const member of ["d", "p", "q", "dp", "dq", "qi"]) expect(keys[0]).not.toHaveProperty(member);

    const discovery = await server.fetch("/auth/v1/.well-known/openid-configuration");
    expect(discovery.headers.get("cache-control")).toBe("public, max-age=600");
    expect(await discovery.json()).toEqual({
      issuer: "http://localhost:9999",
      jwks_uri: "http://localhost:9999/.well-known/jwks.json",
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["HS256", "RS256"],
    });
  });

  it("refuses alg none, HS256 made with the public key as secret, an unknown kid, and what JWT_VALID_METHODS leaves out", async () => {
    const session = (await (
      await server.fetch("/token?grant_type=password", {
        method: "POST",
        json: { email: "rs256@example.com", password },
      })
    ).json()) as { access_token: string };
    const [, payload] = session.access_token.split(".");
    const kid = kidOf(ring);
    expect(await bearerStatus(server, session.access_token)).toEqual([200, null]);

    expect(await bearerStatus(server, `${encode({ alg: "none", typ: "JWT", kid })}.${payload}.`)).toEqual([
      403,
      "bad_jwt",
    ]);

    const publicPem = parseKeyRing(ring).signer.verifyingKey as string;
    for (const header of [
      { alg: "HS256", typ: "JWT", kid },
      { alg: "HS256", typ: "JWT" },
    ]) {
      const body = `${encode(header)}.${payload}`;
      const forged = `${body}.${createHmac("sha256", publicPem).update(body).digest("base64url")}`;
      expect(await bearerStatus(server, forged)).toEqual([403, "bad_jwt"]);
    }

    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString()) as Record<string, unknown>;
    const { privateKey } = await generateKeyPair("RS256");
    const unknownKid = await new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: "not-ours" }).sign(privateKey);
    expect(await bearerStatus(server, unknownKid)).toEqual([403, "bad_jwt"]);

    const strict = await startTestServer({ AUTH_JWT_KEYS: ring, AUTH_JWT_VALID_METHODS: "RS256" });
    try {
      const service = await serviceRoleKey();
      const listed = await strict.fetch("/admin/users", { headers: { authorization: `Bearer ${service}` } });
      expect([listed.status, ((await listed.json()) as Record<string, unknown>)["error_code"]]).toEqual([
        403,
        "bad_jwt",
      ]);
      expect(strict.config.warnings.join("\n")).toContain("leaves out HS256");
    } finally {
      await strict.close();
    }
  });
});

describe("a key rotation", () => {
  // Restarts over one database (the test process's embedded one outlives its servers, as a server's would).
  it("signs nobody out: the new key verifies first, then signs, and the old one's tokens end with it", async () => {
    const namespace = randomNamespace();
    const first = newKeyRing("RS256");
    const added = withNewKey(first, "ES256");
    const switched = withSigner(added, kidOf(added, 1));
    const retired = withoutKey(switched, kidOf(first));
    const start = (ring: string, last = false) =>
      startTestServer(
        { AUTH_JWT_KEYS: ring, AUTH_MAILER_AUTOCONFIRM: "true" },
        {},
        { namespace, dropTablesOnClose: last },
      );
    const signIn = async (server: TestServer) =>
      (await (
        await server.fetch("/token?grant_type=password", {
          method: "POST",
          json: { email: "rotate@example.com", password },
        })
      ).json()) as { access_token: string; refresh_token: string };

    const before = await start(first);
    await before.fetch("/signup", { method: "POST", json: { email: "rotate@example.com", password } });
    const oldSession = await signIn(before);
    await before.close();

    const publishing = await start(added);
    expect(
      ((await (await publishing.fetch("/.well-known/jwks.json")).json()) as { keys: unknown[] }).keys,
    ).toHaveLength(2);
    expect(await bearerStatus(publishing, oldSession.access_token)).toEqual([200, null]);
    await publishing.close();

    const rotated = await start(switched);
    const newSession = await signIn(rotated);
    expect(decodeProtectedHeader(newSession.access_token)).toMatchObject({ alg: "ES256", kid: kidOf(added, 1) });
    expect(await bearerStatus(rotated, oldSession.access_token)).toEqual([200, null]);
    expect(await bearerStatus(rotated, newSession.access_token)).toEqual([200, null]);
    await rotated.close();

    const after = await start(retired, true);
    try {
      expect(await bearerStatus(after, oldSession.access_token)).toEqual([403, "bad_jwt"]);
      expect(await bearerStatus(after, newSession.access_token)).toEqual([200, null]);
      // The old session itself goes on: its refresh token is no JWT, and what it is refreshed to is signed anew.
      const refreshed = (await (
        await after.fetch("/token?grant_type=refresh_token", {
          method: "POST",
          json: { refresh_token: oldSession.refresh_token },
        })
      ).json()) as { access_token: string };
      const { payload } = await jwtVerify(
        refreshed.access_token,
        await importJWK(parseKeyRing(retired).signer.publicJwk!, "ES256"),
      );
      expect(payload["email"]).toBe("rotate@example.com");
    } finally {
      await after.close();
    }
  });
});

describe("a JWT_SECRET rotation", () => {
  // Restarts over one database, as above.
  it("keeps every session when DB_SECRET takes the old secret's value", async () => {
    const namespace = randomNamespace();
    const oldSecret = TEST_JWT_SECRET;
    const newSecret = "a-new-jwt-secret-of-at-least-32-characters";
    const before = await startTestServer(
      // DB_SECRET unset: JWT_SECRET keys what is stored, as in a deployment from before DB_SECRET.
      { AUTH_JWT_SECRET: oldSecret, AUTH_DB_SECRET: undefined, AUTH_MAILER_AUTOCONFIRM: "true" },
      {},
      { namespace, dropTablesOnClose: false },
    );
    const signedUp = (await (
      await before.fetch("/signup", { method: "POST", json: { email: "secret@example.com", password } })
    ).json()) as { access_token: string; refresh_token: string };
    await before.close();

    // An operator who rotates JWT_SECRET sets DB_SECRET to its old value first (README, "Signing keys").
    const after = await startTestServer(
      { AUTH_JWT_SECRET: newSecret, AUTH_DB_SECRET: oldSecret, AUTH_MAILER_AUTOCONFIRM: "true" },
      {},
      { namespace },
    );
    try {
      // The old access token was signed with the old secret: refused, as a rotation means.
      expect(await bearerStatus(after, signedUp.access_token)).toEqual([403, "bad_jwt"]);
      // Its refresh token is looked up by a digest under DB_SECRET: the session goes on.
      const refreshed = await after.fetch("/token?grant_type=refresh_token", {
        method: "POST",
        json: { refresh_token: signedUp.refresh_token },
      });
      expect(refreshed.status).toBe(200);
      const { access_token } = (await refreshed.json()) as { access_token: string };
      const { payload } = await jwtVerify(access_token, new TextEncoder().encode(newSecret));
      expect(payload["email"]).toBe("secret@example.com");
    } finally {
      await after.close();
    }
  });
});
