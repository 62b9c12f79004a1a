import { generateKeyPairSync } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createSamlMetadataReader } from "@latchkey/adapters-saml";
import {
  createTestIdp,
  newSamlPrivateKey,
  type TestIdp,
  type TestResponseOptions,
} from "@latchkey/adapters-saml/testing";
import { startTestServer, type TestServer } from "@latchkey/server/testing";
import { createClient } from "@supabase/supabase-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import ws from "ws";
import { anonKey, claimsOf, fragmentOf, memoryStorage, serviceRoleKey } from "./support.ts";

// SAML single sign-on end to end: supabase-js's signInWithSSO, a stand-in identity provider that signs real
// responses with its own key, the browser's form post to the ACS, and the attacks SAML is known for.

const SITE = "http://localhost:3000";
const IDP_ENTITY = "https://idp.acme.example/entity";
const METADATA_URL = "https://idp.metadata.example/saml/metadata";

let server: TestServer;
let idp: TestIdp;
let metadataHost: Server;
let providerId: string;
let anon: string;
/** The SP's certificate, as its metadata publishes it, to check AuthnRequests' signatures with. */
let spCertificatePem: string;

const acsUrl = () => `${server.config.api.externalUrl}/sso/saml/acs`;
const spEntityId = () => `${server.config.api.externalUrl}/sso/saml/metadata`;

beforeAll(async () => {
  idp = await createTestIdp({ entityId: IDP_ENTITY, ssoUrl: "https://idp.acme.example/sso" });
  // The metadata URL's host, served over plain HTTP on loopback: the reader's fetch is pointed at it, as a
  // provider's host is for every stand-in.
  const second = await createTestIdp({
    entityId: "https://idp.metadata.example/entity",
    ssoUrl: "https://idp.metadata.example/sso",
  });
  metadataHost = createServer((_request, response) => response.end(second.metadataXml));
  await new Promise<void>((resolve) => metadataHost.listen(0, "127.0.0.1", resolve));
  const local = `http://127.0.0.1:${(metadataHost.address() as AddressInfo).port}`;
  const reader = createSamlMetadataReader({ timeoutMs: 5_000, maxBytes: 1024 * 1024 });
  server = await startTestServer(
    {
      AUTH_SAML_ENABLED: "true",
      AUTH_SAML_PRIVATE_KEY: newSamlPrivateKey(),
      AUTH_URI_ALLOW_LIST: `${SITE}/**`,
      // Every request comes from 127.0.0.1: one client far over the limits a suite would be.
      AUTH_RATE_LIMIT_SSO: "100000",
      AUTH_SAML_RATE_LIMIT_ASSERTION: "100000",
    },
    {
      samlMetadata: {
        parse: reader.parse,
        fetch: (url) => reader.fetch(url.replace("https://idp.metadata.example", local)),
      },
    },
  );
  anon = await anonKey();
  const created = await admin("POST", "/admin/sso/providers", {
    type: "saml",
    metadata_xml: idp.metadataXml,
    domains: ["acme.example"],
    attribute_mapping: {
      keys: { name: { name: "displayName" }, groups: { name: "groups", array: true }, plan: { default: "free" } },
    },
  });
  expect(created.status).toBe(201);
  providerId = created.body["id"] as string;
  const metadata = await (await fetch(`${server.url}/sso/saml/metadata`)).text();
  spCertificatePem = `-----BEGIN CERTIFICATE-----\n${/<(?:\w+:)?X509Certificate>([^<]+)</.exec(metadata)![1]}\n-----END CERTIFICATE-----`;
});
afterAll(async () => {
  await server?.close();
  metadataHost?.close();
});

async function admin(method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${await serviceRoleKey()}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function app(flowType: "implicit" | "pkce" = "implicit") {
  return createClient(server.url, anon, {
    realtime: { transport: ws as never },
    auth: {
      storage: memoryStorage(),
      flowType,
      persistSession: true,
      autoRefreshToken: false,
      detectSessionInUrl: false,
    },
  });
}

/** What the browser does with the IdP's page: posts its form to the ACS (as the API_EXTERNAL_URL proxy would). */
async function postToAcs(form: Record<string, string>): Promise<{ status: number; location: URL }> {
  const response = await fetch(`${server.url}/sso/saml/acs`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
    redirect: "manual",
  });
  return { status: response.status, location: new URL(response.headers.get("location") ?? "about:blank") };
}

/** The IdP's answer for our service provider (`options` changes it): IdP-initiated unless it names a request. */
const answer = (options: TestResponseOptions) => idp.response({ acsUrl: acsUrl(), audience: spEntityId(), ...options });

/** signInWithSSO and the request the IdP reads from the URL it gave. */
async function started(client: ReturnType<typeof app>, how: { domain: string } | { providerId: string }) {
  const { data, error } = await client.auth.signInWithSSO({ ...how, options: { redirectTo: `${SITE}/welcome` } });
  expect(error).toBeNull();
  return idp.readAuthnRequest(data!.url, spCertificatePem);
}

/** signInWithSSO, the IdP reading the request, and its answer (`changes` changes it) posted back. */
async function signIn(
  client: ReturnType<typeof app>,
  how: { domain: string } | { providerId: string },
  changes: TestResponseOptions = {},
) {
  const request = await started(client, how);
  const samlResponse = answer({
    inResponseTo: request.id,
    nameId: "00u1ada",
    attributes: { email: "Ada@Acme.example", displayName: "Ada Lovelace", groups: ["eng", "admins"] },
    ...changes,
  });
  return { request, ...(await postToAcs({ SAMLResponse: samlResponse, RelayState: request.relayState ?? "" })) };
}

const errorOf = (location: URL) => ({
  origin: location.origin,
  code: location.searchParams.get("error_code"),
  description: location.searchParams.get("error_description"),
});

describe("SAML sign-in with supabase-js", () => {
  it("sends a signed AuthnRequest for the domain's IdP, and the ACS signs an SSO user in (implicit flow)", async () => {
    const client = app();
    const { request, status, location } = await signIn(client, { domain: "acme.example" });
    expect(request).toMatchObject({
      issuer: spEntityId(),
      acsUrl: acsUrl(),
      nameIdFormat: "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent",
      signatureValid: true,
    });
    expect(status).toBe(302);
    expect(`${location.origin}${location.pathname}`).toBe(`${SITE}/welcome`);
    const tokens = fragmentOf(location);
    expect(tokens["token_type"]).toBe("bearer");
    const { data } = await client.auth.setSession({
      access_token: tokens["access_token"]!,
      refresh_token: tokens["refresh_token"]!,
    });
    const user = data.user!;
    expect(user.email).toBe("ada@acme.example");
    expect(user.app_metadata).toMatchObject({ provider: `sso:${providerId}`, providers: [`sso:${providerId}`] });
    expect(user.identities?.[0]).toMatchObject({ provider: `sso:${providerId}`, id: "00u1ada" });
    expect(user.user_metadata).toMatchObject({
      iss: IDP_ENTITY,
      sub: "00u1ada",
      name: "Ada Lovelace",
      custom_claims: { groups: ["eng", "admins"], plan: "free" },
      email_verified: true,
    });
    const verified = await server.verifyAccessToken(tokens["access_token"]!);
    expect(verified.payload["amr"]).toEqual([expect.objectContaining({ method: "sso/saml", provider: providerId })]);
  });

  it("signs in by provider id with PKCE: the code trades for the session", async () => {
    const client = app("pkce");
    const { status, location } = await signIn(client, { providerId });
    expect(status).toBe(302);
    const code = location.searchParams.get("code");
    expect(code).toBeTruthy();
    const { data, error } = await client.auth.exchangeCodeForSession(code!);
    expect(error).toBeNull();
    expect(data.user?.email).toBe("ada@acme.example");
    expect(claimsOf(data.session!.access_token)["amr"]).toEqual([
      expect.objectContaining({ method: "sso/saml", provider: providerId }),
    ]);
  });

  it("takes a sign-in the IdP started (no request of ours), to SITE_URL", async () => {
    const samlResponse = answer({
      nameId: "00u1grace",
      attributes: { mail: "grace@acme.example" },
    });
    const { status, location } = await postToAcs({ SAMLResponse: samlResponse, RelayState: "" });
    expect(status).toBe(302);
    expect(location.origin).toBe(SITE);
    expect(claimsOf(fragmentOf(location)["access_token"]!)["email"]).toBe("grace@acme.example");
  });

  it("keeps an SSO user apart from a password account of the same address", async () => {
    const client = app();
    const password = "a-long-password-9";
    const signedUp = await client.auth.signUp({ email: "linus@acme.example", password });
    expect(signedUp.error).toBeNull();
    const { location } = await signIn(
      app(),
      { domain: "acme.example" },
      {
        nameId: "00u1linus",
        attributes: { email: "linus@acme.example" },
      },
    );
    const ssoUserId = claimsOf(fragmentOf(location)["access_token"]!)["sub"];
    expect(ssoUserId).not.toBe(signedUp.data.user?.id);
  });

  it("answers with GoTrue's errors: unknown domain, SAML off", async () => {
    const { error } = await app().auth.signInWithSSO({ domain: "nobody.example" });
    expect(error).toMatchObject({ status: 404, code: "sso_provider_not_found" });
    const off = await startTestServer();
    try {
      const response = await fetch(`${off.url}/sso`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ domain: "acme.example" }),
      });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error_code: "saml_provider_disabled" });
      const settings = (await (await fetch(`${off.url}/settings`)).json()) as Record<string, unknown>;
      expect(settings["saml_enabled"]).toBe(false);
    } finally {
      await off.close();
    }
    const settings = (await (await fetch(`${server.url}/settings`)).json()) as Record<string, unknown>;
    expect(settings["saml_enabled"]).toBe(true);
  });
});

describe("the service provider's metadata", () => {
  it("names our EntityID and ACS, is cached ten minutes, and downloads as a file valid for five years", async () => {
    const response = await fetch(`${server.url}/sso/saml/metadata`);
    expect(response.headers.get("content-type")).toContain("application/xml");
    expect(response.headers.get("cache-control")).toBe("public, max-age=600");
    const xml = await response.text();
    expect(xml).toContain(`entityID="${spEntityId()}"`);
    expect(xml).toContain(`Location="${acsUrl()}"`);
    expect(xml).toContain("Signature");
    const download = await fetch(`${server.url}/sso/saml/metadata?download=true`);
    expect(download.headers.get("content-disposition")).toBe('attachment; filename="metadata.xml"');
    const validUntil = /validUntil="([^"]+)"/.exec(await download.text())?.[1];
    expect(new Date(validUntil!).getUTCFullYear()).toBe(new Date().getUTCFullYear() + 5);
  });
});

describe("an IdP added by its metadata URL", () => {
  it("is fetched from its URL and signs its users in", async () => {
    const created = await admin("POST", "/admin/sso/providers", {
      type: "saml",
      metadata_url: METADATA_URL,
      domains: ["metadata.example"],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      saml: { entity_id: "https://idp.metadata.example/entity", metadata_url: METADATA_URL },
    });
    const { data } = await app().auth.signInWithSSO({ domain: "metadata.example" });
    expect(new URL(data!.url).origin).toBe("https://idp.metadata.example");
  });
});

describe("the ACS refuses what SAML is known to get wrong", () => {
  /** A sign-in answered with `answer`: it must end at SITE_URL with the error, and no session anywhere. */
  async function refused(answer: TestResponseOptions, code = "validation_failed") {
    const { status, location } = await signIn(app(), { domain: "acme.example" }, { nameId: "00u1mallory", ...answer });
    expect(status).toBe(303);
    expect(location.hash).toBe("");
    expect(errorOf(location)).toMatchObject({ origin: SITE, code });
    return errorOf(location).description;
  }

  it("an unsigned assertion, and one signed by another key", async () => {
    await refused({ sign: "none" });
    const stranger = generateKeyPairSync("rsa", { modulusLength: 2048 })
      .privateKey.export({ format: "pem", type: "pkcs8" })
      .toString();
    await refused({ signingKeyPem: stranger });
  });

  it("XML signature wrapping, every way the test IdP knows", async () => {
    for (const wrap of ["sibling", "nested", "extensions"] as const) {
      await refused({ wrap, wrappedNameId: "00u1admin", attributes: { email: "admin@acme.example" } });
    }
  });

  it("wrong audience, wrong destination, wrong recipient, expired, another IdP's issuer", async () => {
    await refused({ audience: "https://another-sp.example/metadata" });
    await refused({ destination: "https://another-sp.example/acs" });
    await refused({ recipient: "https://another-sp.example/acs" });
    const past = new Date(Date.now() - 3_600_000);
    await refused({ notBefore: new Date(past.getTime() - 60_000), notOnOrAfter: past });
    await refused({ issuer: "https://idp.evil.example/entity" });
  });

  it("an answer to another request, and a request's answer posted twice", async () => {
    await refused({ inResponseTo: "_f0000000000000000000000000000000000000000" });
    const request = await started(app(), { domain: "acme.example" });
    const samlResponse = answer({
      inResponseTo: request.id,
      nameId: "00u1ada",
      attributes: { email: "ada@acme.example" },
    });
    const form = { SAMLResponse: samlResponse, RelayState: request.relayState! };
    expect((await postToAcs(form)).status).toBe(302);
    expect(errorOf((await postToAcs(form)).location).code).toBe("saml_relay_state_not_found");
    // Without its RelayState, as if the IdP had started it: it answers a request, and the assertion is spent.
    expect(errorOf((await postToAcs({ SAMLResponse: samlResponse })).location).code).toBe("validation_failed");
  });

  it("an IdP-initiated assertion replayed", async () => {
    const samlResponse = answer({
      nameId: "00u1ada",
      attributes: { email: "ada@acme.example" },
    });
    expect((await postToAcs({ SAMLResponse: samlResponse })).status).toBe(302);
    const again = await postToAcs({ SAMLResponse: samlResponse });
    expect(errorOf(again.location)).toMatchObject({
      code: "validation_failed",
      description: "SAML Assertion has already been used",
    });
  });

  it("a comment inside the NameID never signs in the truncated name", async () => {
    const { status, location } = await signIn(
      app(),
      { domain: "acme.example" },
      {
        nameId: "00u1comment",
        nameIdComment: true,
        attributes: { email: "comment@acme.example" },
      },
    );
    if (status === 302) {
      const user = (await admin("GET", `/admin/users/${claimsOf(fragmentOf(location)["access_token"]!)["sub"]}`)).body;
      expect((user["identities"] as { id: string }[]).map((identity) => identity.id)).toEqual([
        "00u1comment.evil.example",
      ]);
    } else {
      expect(errorOf(location).code).toBe("validation_failed");
    }
  });

  it("an XXE payload, without reading the file", async () => {
    const description = await refused({
      doctype: '<!DOCTYPE Response [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>',
    });
    expect(description).not.toContain("root:");
  });

  it("a response that is no SAML at all, without a stack trace", async () => {
    const { status, location } = await postToAcs({ SAMLResponse: "not base64 at all!!" });
    expect(status).toBe(303);
    expect(errorOf(location)).toMatchObject({ origin: SITE, code: "validation_failed" });
  });
});
