import { startTestServer, type TestServer } from "@latchkey/server/testing";
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import ws from "ws";
import { type SoftwareAlgorithm, SoftwareAuthenticator } from "../support/software-authenticator.ts";
import { anonKey, claimsOf, memoryStorage, serviceRoleKey } from "./support.ts";

// Passkeys and WebAuthn factors through supabase-js as an app uses it, with a software authenticator (real keys,
// ES256 and EdDSA, `none` and `packed` attestation) standing in for the browser's. The expectations are those of
// auth-js's own passkey tests against Supabase Auth.

const RP_ID = "localhost";
const ORIGIN = "http://localhost:5173";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const password = "correct-horse-battery";

let server: TestServer;
let admin: SupabaseClient;
let anon: string;

beforeAll(async () => {
  server = await startTestServer({
    AUTH_MAILER_AUTOCONFIRM: "true",
    AUTH_PASSKEY_ENABLED: "true",
    AUTH_MFA_WEB_AUTHN_ENROLL_ENABLED: "true",
    AUTH_MFA_WEB_AUTHN_VERIFY_ENABLED: "true",
    AUTH_WEBAUTHN_RP_ID: RP_ID,
    AUTH_WEBAUTHN_RP_DISPLAY_NAME: "Latchkey tests",
    AUTH_WEBAUTHN_RP_ORIGINS: ORIGIN,
  });
  admin = supabase(await serviceRoleKey(), { persist: false });
  anon = await anonKey();
});
afterAll(async () => {
  await server?.close();
});

function supabase(key: string, { persist = true }: { persist?: boolean } = {}) {
  return createClient(server.url, key, {
    realtime: { transport: ws as never },
    auth: {
      storage: memoryStorage(),
      storageKey: `sb-passkeys-${crypto.randomUUID()}`,
      persistSession: persist,
      autoRefreshToken: false,
      detectSessionInUrl: false,
    },
  });
}

let people = 0;
/** A new account, signed in on an app of its own. */
async function signedUp() {
  people += 1;
  const app = supabase(anon);
  const { data, error } = await app.auth.signUp({ email: `passkey-${people}-${Date.now()}@example.com`, password });
  expect(error).toBeNull();
  return { app, userId: data.user!.id };
}

/** Registers a passkey of `authenticator` through the client's two steps; answers the client's result. */
async function registerPasskey(app: SupabaseClient, authenticator: SoftwareAuthenticator) {
  const { data: options, error } = await app.auth.passkey.startRegistration();
  expect(error).toBeNull();
  const credential = authenticator.create(options!.options as never);
  return app.auth.passkey.verifyRegistration({ challengeId: options!.challenge_id, credential: credential as never });
}

/** Signs in with a passkey of `authenticator` on a fresh app. */
async function signInWithPasskey(authenticator: SoftwareAuthenticator) {
  const app = supabase(anon);
  const { data: options, error } = await app.auth.passkey.startAuthentication();
  expect(error).toBeNull();
  expect(options!.options.allowCredentials ?? []).toHaveLength(0);
  const assertion = authenticator.get(options!.options as never);
  const result = await app.auth.passkey.verifyAuthentication({
    challengeId: options!.challenge_id,
    credential: assertion as never,
  });
  return { app, result, challengeId: options!.challenge_id, assertion };
}

const authenticatorOf = (algorithm: SoftwareAlgorithm, attestation: "none" | "packed") =>
  new SoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN, algorithm, attestation });

describe("passkeys through supabase-js", () => {
  it.each([
    ["ES256", "none"],
    ["ES256", "packed"],
    ["EdDSA", "none"],
    ["EdDSA", "packed"],
  ] as const)("register (%s keys, %s attestation), then sign in with no password", async (algorithm, attestation) => {
    const { app, userId } = await signedUp();
    const { data: options } = await app.auth.passkey.startRegistration();
    expect(options!.challenge_id).toMatch(UUID);
    expect(options!.expires_at).toBeGreaterThan(Math.floor(Date.now() / 1000));
    expect(options!.options).toMatchObject({ rp: { id: RP_ID }, authenticatorSelection: { residentKey: "required" } });
    expect(options!.options.pubKeyCredParams).toEqual(
      expect.arrayContaining([expect.objectContaining({ alg: -7 }), expect.objectContaining({ alg: -8 })]),
    );
    const authenticator = authenticatorOf(algorithm, attestation);
    const created = await app.auth.passkey.verifyRegistration({
      challengeId: options!.challenge_id,
      credential: authenticator.create(options!.options as never) as never,
    });
    expect(created.error).toBeNull();
    expect(created.data).toMatchObject({ id: expect.stringMatching(UUID), created_at: expect.any(String) });

    const { app: elsewhere, result } = await signInWithPasskey(authenticator);
    expect(result.error).toBeNull();
    expect(result.data!.user!.id).toBe(userId);
    expect(claimsOf(result.data!.session!.access_token)).toMatchObject({ sub: userId, aal: "aal1" });
    expect((claimsOf(result.data!.session!.access_token)["amr"] as { method: string }[])[0]?.method).toBe("passkey");
    expect((await elsewhere.auth.getUser()).data.user?.id).toBe(userId);
    const { data: listed } = await app.auth.passkey.list();
    expect(listed).toEqual([
      {
        id: created.data!.id,
        friendly_name: "Passkey",
        created_at: expect.any(String),
        last_used_at: expect.any(String),
      },
    ]);
  });

  it("refuse a replayed challenge, an unknown challenge, and an authenticator that never registered", async () => {
    const { app } = await signedUp();
    const authenticator = authenticatorOf("ES256", "none");
    expect((await registerPasskey(app, authenticator)).error).toBeNull();
    const first = await signInWithPasskey(authenticator);
    expect(first.result.error).toBeNull();
    const again = await first.app.auth.passkey.verifyAuthentication({
      challengeId: first.challengeId,
      credential: first.assertion as never,
    });
    expect(again.error).toMatchObject({ status: 400, code: "webauthn_challenge_not_found" });

    const { data: options } = await app.auth.passkey.startRegistration();
    const unknown = await app.auth.passkey.verifyRegistration({
      challengeId: "00000000-0000-0000-0000-000000000000",
      credential: authenticatorOf("ES256", "none").create(options!.options as never) as never,
    });
    expect(unknown.error).toMatchObject({ status: 400, code: "webauthn_challenge_not_found" });

    // Bound to the real user's handle, never registered.
    const stranger = authenticatorOf("ES256", "none");
    const { data: creation } = await app.auth.passkey.startRegistration();
    stranger.create(creation!.options as never);
    const refused = await signInWithPasskey(stranger);
    expect(refused.result.error).toMatchObject({ status: 400, code: "webauthn_verification_failed" });
  });

  it("refuse an answer for another origin, and a cloned key whose counter goes backwards", async () => {
    const { app } = await signedUp();
    const authenticator = authenticatorOf("ES256", "none");
    const { data: options } = await app.auth.passkey.startRegistration();
    const wrongOrigin = authenticator.create(options!.options as never, { origin: "https://evil.example" });
    const refused = await app.auth.passkey.verifyRegistration({
      challengeId: options!.challenge_id,
      credential: wrongOrigin as never,
    });
    expect(refused.error).toMatchObject({ status: 400, code: "webauthn_verification_failed" });

    expect((await registerPasskey(app, authenticator)).error).toBeNull();
    authenticator.setCounter(10);
    expect((await signInWithPasskey(authenticator)).result.error).toBeNull();
    authenticator.setCounter(3);
    const cloned = await signInWithPasskey(authenticator);
    expect(cloned.result.error).toMatchObject({ status: 400, code: "webauthn_verification_failed" });
  });

  it("rename, delete, and admin list and delete", async () => {
    const { app, userId } = await signedUp();
    const kept = (await registerPasskey(app, authenticatorOf("EdDSA", "none"))).data!;
    const authenticator = authenticatorOf("ES256", "packed");
    const second = (await registerPasskey(app, authenticator)).data!;
    const renamed = await app.auth.passkey.update({ passkeyId: kept.id, friendlyName: "Laptop" });
    expect(renamed.data).toMatchObject({ id: kept.id, friendly_name: "Laptop" });
    const unknown = await app.auth.passkey.update({
      passkeyId: "00000000-0000-0000-0000-000000000000",
      friendlyName: "nope",
    });
    expect(unknown.error).toMatchObject({ status: 404 });

    const listed = await admin.auth.admin.passkey.listPasskeys({ userId });
    expect(listed.data?.map((each) => each.id)).toEqual([kept.id, second.id]);
    expect((await admin.auth.admin.passkey.deletePasskey({ userId, passkeyId: second.id })).error).toBeNull();
    expect((await signInWithPasskey(authenticator)).result.error).toMatchObject({
      code: "webauthn_verification_failed",
    });
    expect((await app.auth.passkey.delete({ passkeyId: kept.id })).error).toBeNull();
    expect((await app.auth.passkey.list()).data).toEqual([]);
  });

  it("need a session to register, and are reported in /settings", async () => {
    const app = supabase(anon);
    const { error } = await app.auth.passkey.startRegistration();
    expect(error?.name).toBe("AuthSessionMissingError");
    const settings = await (await server.fetch("/settings")).json();
    expect(settings).toMatchObject({ passkeys_enabled: true });
  });
});

/** Options as the client deserialized them (ArrayBuffers), back to JSON for the software authenticator. */
function asJson(value: unknown): unknown {
  if (value instanceof ArrayBuffer) return Buffer.from(value).toString("base64url");
  if (ArrayBuffer.isView(value))
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64url");
  if (Array.isArray(value)) return value.map(asJson);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, each]) => [key, asJson(each)]));
  }
  return value;
}

/** The WebAuthn options of a factor's challenge, as JSON. */
const publicKeyOf = (challenge: unknown) =>
  asJson(
    (challenge as { webauthn: { credential_options: { publicKey: unknown } } }).webauthn.credential_options.publicKey,
  );

/** An authenticator's JSON answer as a browser's PublicKeyCredential, which the client serializes with toJSON. */
const asCredential = (json: unknown) => ({ toJSON: () => json }) as never;

describe("WebAuthn factors through supabase-js", () => {
  it("enroll, register the key at the first challenge, and step up to aal2 with it later", async () => {
    const { app } = await signedUp();
    const enrolled = await app.auth.mfa.enroll({ factorType: "webauthn", friendlyName: "Security key" });
    expect(enrolled.error).toBeNull();
    expect(enrolled.data).toMatchObject({ type: "webauthn", friendly_name: "Security key" });
    const factorId = enrolled.data!.id;
    const authenticator = authenticatorOf("ES256", "none");

    const create = await app.auth.mfa.challenge({ factorId });
    expect(create.data).toMatchObject({ type: "webauthn", webauthn: { type: "create" } });
    const creation = publicKeyOf(create.data);
    const registered = await app.auth.mfa.verify({
      factorId,
      challengeId: create.data!.id,
      webauthn: {
        type: "create",
        rpId: RP_ID,
        rpOrigins: [ORIGIN],
        credential_response: asCredential(authenticator.create(creation as never)),
      },
    } as never);
    expect(registered.error).toBeNull();
    expect(claimsOf(registered.data!.access_token)).toMatchObject({ aal: "aal2" });
    expect((claimsOf(registered.data!.access_token)["amr"] as { method: string }[])[0]?.method).toBe("mfa/webauthn");

    const signedIn = supabase(anon);
    const { data } = await signedIn.auth.signInWithPassword({
      email: (await app.auth.getUser()).data.user!.email!,
      password,
    });
    expect(claimsOf(data.session!.access_token)).toMatchObject({ aal: "aal1" });
    const request = await signedIn.auth.mfa.challenge({ factorId });
    expect(request.data).toMatchObject({ webauthn: { type: "request" } });
    const requestOptions = publicKeyOf(request.data);
    const stepped = await signedIn.auth.mfa.verify({
      factorId,
      challengeId: request.data!.id,
      webauthn: {
        type: "request",
        rpId: RP_ID,
        rpOrigins: [ORIGIN],
        credential_response: asCredential(authenticator.get(requestOptions as never)),
      },
    } as never);
    expect(stepped.error).toBeNull();
    expect(claimsOf(stepped.data!.access_token)).toMatchObject({ aal: "aal2" });
    const { data: factors } = await signedIn.auth.mfa.listFactors();
    expect(factors?.all).toEqual([
      expect.objectContaining({ id: factorId, factor_type: "webauthn", status: "verified" }),
    ]);
  });

  it("are refused in auth-js's words when switched off, as today", async () => {
    const off = await startTestServer({ AUTH_MAILER_AUTOCONFIRM: "true" });
    try {
      const app = createClient(off.url, anon, {
        realtime: { transport: ws as never },
        auth: { storage: memoryStorage(), persistSession: true, autoRefreshToken: false, detectSessionInUrl: false },
      });
      await app.auth.signUp({ email: `off-${Date.now()}@example.com`, password });
      const enrolled = await app.auth.mfa.enroll({ factorType: "webauthn", friendlyName: "Key" });
      expect(enrolled.error).toMatchObject({ status: 422, code: "mfa_webauthn_enroll_not_enabled" });
      const passkeys = await app.auth.passkey.startRegistration();
      expect(passkeys.error).toMatchObject({ status: 404, code: "passkey_disabled", message: "Passkeys are disabled" });
    } finally {
      await off.close();
    }
  });
});
