import { startTestServer, type TestServer } from "@latchkey/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anonKey, serviceRoleKey } from "./support.ts";

/** An identity provider's metadata, as Okta publishes it (the certificate is a placeholder: nothing is signed yet). */
const metadata = (entityId: string, extra = "") => `<?xml version="1.0" encoding="UTF-8"?>${extra}
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${entityId}">
  <md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing">
      <ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>MIIC
        AAAA</ds:X509Certificate></ds:X509Data></ds:KeyInfo>
    </md:KeyDescriptor>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example/sso"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;

// The admin's registry of SAML identity providers over HTTP, in GoTrue's shapes; the sign-in comes later.
describe("/admin/sso/providers", () => {
  let server: TestServer;
  let headers: Record<string, string>;
  beforeAll(async () => {
    server = await startTestServer();
    headers = { authorization: `Bearer ${await serviceRoleKey()}`, "content-type": "application/json" };
  });
  afterAll(() => server.close());

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}/admin/sso/providers${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };

  it("adds a provider from its metadata, then reads, lists, changes and deletes it", async () => {
    const created = await call("POST", "", {
      type: "saml",
      metadata_xml: metadata("https://idp.acme.example/entity"),
      domains: ["Acme.example"],
      attribute_mapping: { keys: { name: { name: "displayName" }, groups: { name: "groups", array: true } } },
      resource_id: "acme",
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      resource_id: "acme",
      disabled: null,
      saml: {
        entity_id: "https://idp.acme.example/entity",
        attribute_mapping: { keys: { name: { name: "displayName" }, groups: { name: "groups", array: true } } },
      },
      domains: [{ domain: "acme.example" }],
    });
    expect(created.body["saml"].metadata_xml).toContain("IDPSSODescriptor");
    const id = created.body["id"] as string;

    expect((await call("GET", `/${id}`)).body).toEqual(created.body);
    expect((await call("GET", "/resource_acme")).body["id"]).toBe(id);
    const listed = await call("GET", "?resource_id_prefix=ac");
    expect(listed.body["items"]).toHaveLength(1);
    expect(listed.body["items"][0].saml.metadata_xml).toBeUndefined();

    const updated = await call("PUT", `/${id}`, { domains: ["acme.example", "acme.test"], disabled: true });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      disabled: true,
      domains: [{ domain: "acme.example" }, { domain: "acme.test" }],
    });

    const deleted = await call("DELETE", `/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body["id"]).toBe(id);
    expect(await call("GET", `/${id}`)).toMatchObject({ status: 404, body: { error_code: "sso_provider_not_found" } });
  });

  it("refuses bad providers with GoTrue's codes, in Supabase's error shape, and keeps none of them", async () => {
    const held = await call("POST", "", {
      type: "saml",
      metadata_xml: metadata("https://idp.held.example/entity"),
      domains: ["held.example"],
    });
    expect(held.status).toBe(201);
    const cases: [unknown, number, string, string][] = [
      [{ type: "saml" }, 400, "validation_failed", "Either metadata_xml or metadata_url must be set"],
      [
        { type: "saml", metadata_url: "http://idp.example/m" },
        400,
        "validation_failed",
        "metadata_url is not a HTTPS URL",
      ],
      [
        { type: "saml", metadata_xml: "<md:EntityDescriptor" },
        400,
        "validation_failed",
        "SAML Metadata is not valid XML",
      ],
      [
        {
          type: "saml",
          metadata_xml: metadata("https://idp.xxe.example", '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>'),
        },
        400,
        "validation_failed",
        "document type declaration",
      ],
      [
        { type: "saml", metadata_xml: metadata("https://idp.held.example/entity") },
        422,
        "saml_idp_already_exists",
        "already exists",
      ],
      [
        { type: "saml", metadata_xml: metadata("https://idp.other.example/entity"), domains: ["HELD.example"] },
        400,
        "sso_domain_already_exists",
        `(${held.body["id"]})`,
      ],
      [{ type: "saml", metadata_xml: 42 }, 400, "validation_failed", "metadata_xml"],
      // Text PostgreSQL cannot store, in a list and as a key of the mapping.
      [
        { type: "saml", metadata_xml: metadata("https://idp.nul.example"), domains: ["a\u0000b"] },
        400,
        "validation_failed",
        "NUL",
      ],
      [
        {
          type: "saml",
          metadata_xml: metadata("https://idp.nul.example"),
          attribute_mapping: { keys: { "a\u0000b": {} } },
        },
        400,
        "validation_failed",
        "NUL",
      ],
    ];
    for (const [body, status, code, text] of cases) {
      const answer = await call("POST", "", body);
      expect(answer.status, JSON.stringify(body)).toBe(status);
      expect(answer.body).toMatchObject({ code: status, error_code: code });
      expect(answer.body["msg"]).toContain(text);
    }
    expect((await call("GET", "")).body["items"]).toHaveLength(1);
  });

  it("is for admins only", async () => {
    const response = await fetch(`${server.url}/admin/sso/providers`, {
      headers: { authorization: `Bearer ${await anonKey()}` },
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error_code: "not_admin" });
  });
});
