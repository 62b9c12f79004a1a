import { createTestIdp, newSamlPrivateKey, type TestIdp } from "@latchkey/adapters-saml/testing";
import { startTestServer, type TestServer } from "@latchkey/server/testing";
import { createClient } from "@supabase/supabase-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import ws from "ws";
import { anonKey, fragmentOf, memoryStorage, serviceRoleKey } from "./support.ts";

// Encrypted SAML assertions end to end (SAML_ALLOW_ENCRYPTED_ASSERTIONS) while a key rotates in
// (SAML_PRIVATE_KEY_NEXT): our metadata offers both certificates for encryption, and the identity provider may
// encrypt to either. supabase-js's signInWithSSO starts the flow; the stand-in IdP signs its assertion, encrypts it to
// the certificate it took from our metadata, and the browser posts it to the ACS.

const SITE = "http://localhost:3000";
const IDP_ENTITY = "https://idp.sealed.example/entity";

let server: TestServer;
let idp: TestIdp;
let anon: string;
/** Our metadata as GET /sso/saml/metadata answered it. */
let metadata: { cacheControl: string | null; xml: string };

const acsUrl = () => `${server.config.api.externalUrl}/sso/saml/acs`;
const spEntityId = () => `${server.config.api.externalUrl}/sso/saml/metadata`;

beforeAll(async () => {
  idp = await createTestIdp({ entityId: IDP_ENTITY, ssoUrl: "https://idp.sealed.example/sso" });
  server = await startTestServer({
    AUTH_SAML_ENABLED: "true",
    AUTH_SAML_PRIVATE_KEY: newSamlPrivateKey(),
    AUTH_SAML_PRIVATE_KEY_NEXT: newSamlPrivateKey(),
    AUTH_SAML_ALLOW_ENCRYPTED_ASSERTIONS: "true",
    AUTH_URI_ALLOW_LIST: `${SITE}/**`,
    // Every request comes from 127.0.0.1: one client far over the limits a suite would be.
    AUTH_RATE_LIMIT_SSO: "100000",
    AUTH_SAML_RATE_LIMIT_ASSERTION: "100000",
  });
  anon = await anonKey();
  const created = await fetch(`${server.url}/admin/sso/providers`, {
    method: "POST",
    headers: { authorization: `Bearer ${await serviceRoleKey()}`, "content-type": "application/json" },
    body: JSON.stringify({ type: "saml", metadata_xml: idp.metadataXml, domains: ["sealed.example"] }),
  });
  expect(created.status).toBe(201);
  const response = await fetch(`${server.url}/sso/saml/metadata`);
  metadata = { cacheControl: response.headers.get("cache-control"), xml: await response.text() };
});
afterAll(async () => {
  await server?.close();
});

/** The certificates (base64 DER) our metadata offers for `use`, in order. */
const certificates = (use: "signing" | "encryption") =>
  Array.from(
    metadata.xml.matchAll(
      /<(?:\w+:)?KeyDescriptor use="(\w+)">[\s\S]*?<(?:\w+:)?X509Certificate>([^<]+)<\/(?:\w+:)?X509Certificate>/g,
    ),
  )
    .filter((match) => match[1] === use)
    .map((match) => match[2]!.replace(/\s+/g, ""));

const pem = (certificate: string) => `-----BEGIN CERTIFICATE-----\n${certificate}\n-----END CERTIFICATE-----`;

function app() {
  return createClient(server.url, anon, {
    realtime: { transport: ws as never },
    auth: { storage: memoryStorage(), flowType: "implicit", persistSession: true, autoRefreshToken: false },
  });
}

/**
 * signInWithSSO for the IdP's domain, the IdP's answer to the request encrypted to `encryptFor`, posted by the
 * browser to the ACS: the redirect the ACS answers with.
 */
async function signIn(client: ReturnType<typeof app>, user: { nameId: string; email: string }, encryptFor: string) {
  const { data, error } = await client.auth.signInWithSSO({
    domain: "sealed.example",
    options: { redirectTo: `${SITE}/welcome` },
  });
  expect(error).toBeNull();
  const request = idp.readAuthnRequest(data!.url, pem(certificates("signing")[0]!));
  expect(request.signatureValid).toBe(true);
  const samlResponse = idp.response({
    acsUrl: acsUrl(),
    audience: spEntityId(),
    inResponseTo: request.id,
    nameId: user.nameId,
    attributes: { email: user.email },
    encryptFor,
  });
  const response = await fetch(`${server.url}/sso/saml/acs`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ SAMLResponse: samlResponse, RelayState: request.relayState ?? "" }).toString(),
    redirect: "manual",
  });
  return { status: response.status, location: new URL(response.headers.get("location") ?? "about:blank") };
}

/** A successful sign-in: the session in the fragment, for the user the assertion names. */
async function expectSignedIn(client: ReturnType<typeof app>, answer: { status: number; location: URL }) {
  expect(answer.status).toBe(302);
  expect(`${answer.location.origin}${answer.location.pathname}`).toBe(`${SITE}/welcome`);
  const tokens = fragmentOf(answer.location);
  const { data, error } = await client.auth.setSession({
    access_token: tokens["access_token"]!,
    refresh_token: tokens["refresh_token"]!,
  });
  expect(error).toBeNull();
  return data.user!;
}

describe("our metadata while a key rotates in, encrypted assertions allowed", () => {
  it("offers both certificates, for signing and for encryption, cached a minute, with cacheDuration", () => {
    const signing = certificates("signing");
    expect(signing).toHaveLength(2);
    expect(new Set(signing).size).toBe(2);
    expect(certificates("encryption")).toEqual(signing);
    expect(metadata.cacheControl).toBe("public, max-age=60");
    expect(metadata.xml).toMatch(/cacheDuration="PT\d+S"/);
  });

  it("is what /settings says: the next key configured", async () => {
    const settings = (await (await fetch(`${server.url}/settings`)).json()) as Record<string, unknown>;
    expect(settings).toMatchObject({ saml_enabled: true, saml_private_key_next_configured: true });
  });
});

describe("a sign-in with an encrypted assertion (supabase-js, implicit flow)", () => {
  it("is taken encrypted to our current certificate", async () => {
    const client = app();
    const current = pem(certificates("encryption")[0]!);
    const user = await expectSignedIn(
      client,
      await signIn(client, { nameId: "00u1current", email: "Current@Sealed.example" }, current),
    );
    expect(user.email).toBe("current@sealed.example");
    expect(user.identities?.[0]).toMatchObject({ id: "00u1current" });
  });

  it("is taken encrypted to the next certificate", async () => {
    const client = app();
    const next = pem(certificates("encryption")[1]!);
    const user = await expectSignedIn(
      client,
      await signIn(client, { nameId: "00u1next", email: "next@sealed.example" }, next),
    );
    expect(user.email).toBe("next@sealed.example");
    expect(user.identities?.[0]).toMatchObject({ id: "00u1next" });
  });

  it("is refused encrypted to a certificate that is not ours", async () => {
    const stranger = await createTestIdp({
      entityId: "https://stranger.example",
      ssoUrl: "https://stranger.example/sso",
    });
    const { status, location } = await signIn(
      app(),
      { nameId: "00u1mallory", email: "mallory@sealed.example" },
      stranger.certificatePem,
    );
    expect(status).toBe(303);
    expect(location.hash).toBe("");
    expect(location.origin).toBe(SITE);
    expect(location.searchParams.get("error_code")).toBe("validation_failed");
  });
});
