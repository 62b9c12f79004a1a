import { generateKeyPairSync } from "node:crypto";
import { AuthError, type SamlIdpMetadata } from "@latchkey/domain";
import { DOMParser } from "@xmldom/xmldom";
import { beforeAll, describe, expect, it } from "vitest";
import { SignedXml } from "xml-crypto";
import { createSamlMetadataReader } from "../src/index.ts";
import {
  createSamlServiceProvider,
  type SamlServiceProviderKey,
  samlServiceProviderKey,
} from "../src/service-provider.ts";
import { createTestIdp, type TestIdp, type TestResponseOptions } from "../src/testing/index.ts";

const BASE = "https://auth.example.com/";
const SP = { entityId: "https://auth.example.com/sso/saml/metadata", acsUrl: "https://auth.example.com/sso/saml/acs" };
const EMAIL = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";
const MD = "urn:oasis:names:tc:SAML:2.0:metadata";
const DS = "http://www.w3.org/2000/09/xmldsig#";

const newKey = () =>
  samlServiceProviderKey({
    privateKeyBase64: generateKeyPairSync("rsa", { modulusLength: 2048 })
      .privateKey.export({ format: "der", type: "pkcs1" })
      .toString("base64"),
    host: "auth.example.com",
    allowEncryptedAssertions: true,
  });

let key: SamlServiceProviderKey;
let nextKey: SamlServiceProviderKey;
let idp: TestIdp;
let metadata: SamlIdpMetadata;

beforeAll(async () => {
  [key, nextKey, idp] = await Promise.all([
    newKey(),
    newKey(),
    createTestIdp({
      entityId: "https://idp.example.org/saml",
      ssoUrl: "https://idp.example.org/sso?tenant=acme",
      sp: SP,
    }),
  ]);
  metadata = createSamlMetadataReader({ timeoutMs: 1_000, maxBytes: 1_000_000 }).parse(idp.metadataXml);
});

const provider = (overrides: { allowEncryptedAssertions?: boolean; nextKey?: SamlServiceProviderKey | null } = {}) =>
  createSamlServiceProvider({
    baseUrl: BASE,
    key,
    nextKey: overrides.nextKey ?? null,
    allowEncryptedAssertions: overrides.allowEncryptedAssertions ?? false,
  });

const parse = (xml: string) => new DOMParser().parseFromString(xml, "application/xml");

describe("the test identity provider", () => {
  it("has metadata the reader takes", () => {
    expect(metadata).toEqual({
      entityId: "https://idp.example.org/saml",
      ssoRedirectUrl: "https://idp.example.org/sso?tenant=acme",
      signingCertificates: [idp.certificate],
      validUntil: null,
      cacheDurationSeconds: null,
    });
  });
});

describe("metadata", () => {
  const verifies = (xml: string, certificatePem: string) => {
    const signature = parse(xml).getElementsByTagNameNS(DS, "Signature")[0]!;
    const verifier = new SignedXml({ publicCert: certificatePem });
    verifier.loadSignature(signature.toString());
    // xml-crypto throws for a signature that does not verify.
    try {
      return verifier.checkSignature(xml);
    } catch {
      return false;
    }
  };
  const keyDescriptors = (xml: string, use: string) =>
    Array.from(parse(xml).getElementsByTagNameNS(MD, "KeyDescriptor"))
      .filter((descriptor) => descriptor.getAttribute("use") === use)
      .map((descriptor) => (descriptor.textContent ?? "").replace(/\s+/g, ""));
  const body = (pem: string) => pem.replace(/-----[A-Z ]+-----|\s+/g, "");

  it("names our EntityID and ACS, our certificate, and is signed with our key", async () => {
    const sp = provider();
    expect(sp.entityId).toBe(SP.entityId);
    expect(sp.acsUrl).toBe(SP.acsUrl);
    expect(sp.rotating).toBe(false);
    const xml = await sp.metadata({ validUntil: null, cacheDurationSeconds: null });
    const root = parse(xml).documentElement!;
    expect(root.getAttribute("entityID")).toBe(SP.entityId);
    expect(root.hasAttribute("validUntil")).toBe(false);
    expect(root.hasAttribute("cacheDuration")).toBe(false);
    const descriptor = root.getElementsByTagNameNS(MD, "SPSSODescriptor")[0]!;
    expect(descriptor.getAttribute("WantAssertionsSigned")).toBe("true");
    expect(descriptor.hasAttribute("AuthnRequestsSigned")).toBe(false);
    const acs = root.getElementsByTagNameNS(MD, "AssertionConsumerService")[0]!;
    expect(acs.getAttribute("Location")).toBe(SP.acsUrl);
    expect(acs.getAttribute("Binding")).toBe("urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST");
    expect(Array.from(root.getElementsByTagNameNS(MD, "NameIDFormat")).map((format) => format.textContent)).toEqual([
      EMAIL,
      "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent",
    ]);
    expect(keyDescriptors(xml, "signing")).toEqual([body(key.certificatePem)]);
    expect(keyDescriptors(xml, "encryption")).toEqual([]);
    expect(verifies(xml, key.certificatePem)).toBe(true);
    expect(verifies(xml.replace(SP.acsUrl, "https://evil.example/acs"), key.certificatePem)).toBe(false);
    expect(verifies(xml, nextKey.certificatePem)).toBe(false);
  });

  it("states validUntil and cacheDuration when asked", async () => {
    const xml = await provider().metadata({ validUntil: new Date("2030-01-02T03:04:05Z"), cacheDurationSeconds: 3600 });
    const root = parse(xml).documentElement!;
    expect(root.getAttribute("validUntil")).toBe("2030-01-02T03:04:05.000Z");
    expect(root.getAttribute("cacheDuration")).toBe("PT3600S");
    expect(verifies(xml, key.certificatePem)).toBe(true);
  });

  it("adds the next certificate, and encryption certificates only when encrypted assertions are allowed", async () => {
    const sp = provider({ nextKey, allowEncryptedAssertions: true });
    expect(sp.rotating).toBe(true);
    const xml = await sp.metadata({ validUntil: null, cacheDurationSeconds: null });
    const both = [body(key.certificatePem), body(nextKey.certificatePem)];
    expect(keyDescriptors(xml, "signing")).toEqual(both);
    expect(keyDescriptors(xml, "encryption")).toEqual(both);
    expect(verifies(xml, key.certificatePem)).toBe(true);
  });
});

describe("authnRequest", () => {
  it("is a signed redirect the IdP reads: our ID, issuer, ACS and NameID format, the RelayState", async () => {
    const relayState = "8d5a1c2e-state with ~!'()* and spaces";
    const { url, requestId } = await provider().authnRequest({ idp: metadata, relayState, nameIdFormat: EMAIL });
    expect(requestId).toMatch(/^_[0-9a-f]{40}$/);
    expect(url.startsWith("https://idp.example.org/sso?tenant=acme&SAMLRequest=")).toBe(true);
    const request = idp.readAuthnRequest(url, key.certificatePem);
    expect(request).toEqual({
      id: requestId,
      issuer: SP.entityId,
      acsUrl: SP.acsUrl,
      nameIdFormat: EMAIL,
      relayState,
      destination: "https://idp.example.org/sso?tenant=acme",
      sigAlg: "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
      signatureValid: true,
    });
    expect(idp.readAuthnRequest(url, nextKey.certificatePem).signatureValid).toBe(false);
    const other = await provider().authnRequest({ idp: metadata, relayState, nameIdFormat: EMAIL });
    expect(other.requestId).not.toBe(requestId);
  });

  it("is refused for an IdP without an HTTP-Redirect endpoint", async () => {
    const request = provider().authnRequest({
      idp: { ...metadata, ssoRedirectUrl: null },
      relayState: "x",
      nameIdFormat: EMAIL,
    });
    await expect(request).rejects.toBeInstanceOf(AuthError);
    await expect(request).rejects.toMatchObject({ code: "validation_failed" });
  });
});

describe("peekIssuer", () => {
  it("reads the Response's Issuer, unverified", () => {
    expect(provider().peekIssuer(idp.response({ sign: "none" }))).toBe("https://idp.example.org/saml");
  });

  it("refuses what is not base64 or not XML", () => {
    const sp = provider();
    expect(() => sp.peekIssuer("%%%")).toThrow("SAMLResponse is not a valid Base64 string");
    expect(() => sp.peekIssuer(Buffer.from("<a><b></a>").toString("base64"))).toThrow(
      "SAMLResponse is not a valid XML SAML assertion",
    );
    expect(() => sp.peekIssuer(idp.response({ doctype: "<!DOCTYPE x>" }))).toThrow(
      "SAMLResponse is not a valid XML SAML assertion",
    );
  });
});

describe("readAssertion", () => {
  const read = (options: TestResponseOptions, inResponseTo: string | null = null, sp = provider()) =>
    sp.readAssertion({ idp: metadata, samlResponse: idp.response(options), inResponseTo });

  /** Refused with the port's error, whatever the reason; the reason returned to check it is the expected one. */
  const refused = async (options: TestResponseOptions, inResponseTo: string | null = null) => {
    const error = await read(options, inResponseTo).then(
      (assertion) => assertion,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({ code: "validation_failed", message: "SAML Assertion is not valid" });
    return String((error as AuthError).cause);
  };

  it("reads an IdP-initiated assertion: NameID, attributes, session end, expiry", async () => {
    const notOnOrAfter = new Date(Date.now() + 4 * 60_000);
    const sessionNotOnOrAfter = new Date(Date.now() + 8 * 3600_000);
    const assertion = await read({
      assertionId: "_assertion-1",
      nameId: "jane@corp.example",
      notOnOrAfter,
      sessionNotOnOrAfter,
      attributes: {
        email: "jane@corp.example",
        groups: ["admins", "staff"],
        "urn:oid:2.5.4.42": { values: "Jane", friendlyName: "givenName" },
      },
    });
    expect(assertion).toEqual({
      id: "_assertion-1",
      issuer: "https://idp.example.org/saml",
      nameId: "jane@corp.example",
      nameIdFormat: EMAIL,
      attributes: [
        { name: "email", friendlyName: null, values: ["jane@corp.example"] },
        { name: "groups", friendlyName: null, values: ["admins", "staff"] },
        { name: "urn:oid:2.5.4.42", friendlyName: "givenName", values: ["Jane"] },
      ],
      expiresAt: new Date(notOnOrAfter.toISOString()),
      sessionNotOnOrAfter: new Date(sessionNotOnOrAfter.toISOString()),
    });
  });

  it("reads an answer to our request", async () => {
    const { requestId } = await provider().authnRequest({ idp: metadata, relayState: "r", nameIdFormat: EMAIL });
    const assertion = await read({ inResponseTo: requestId }, requestId);
    expect(assertion.nameId).toBe("a@corp.example");
  });

  it("takes a signed response around a signed assertion, and a response without Destination", async () => {
    expect((await read({ sign: "both" })).nameId).toBe("a@corp.example");
    expect((await read({ destination: null })).nameId).toBe("a@corp.example");
  });

  it("refuses an unsigned assertion, and a signed response around one", async () => {
    await refused({ sign: "none" });
    await refused({ sign: "response" });
  });

  it("refuses an assertion signed by another key", async () => {
    const other = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
      format: "pem",
      type: "pkcs8",
    });
    await refused({ signingKeyPem: other.toString() });
  });

  it.each(["sibling", "nested", "extensions"] as const)("refuses signature wrapping (%s)", async (wrap) => {
    const cause = await refused({ wrap, nameId: "a@corp.example", wrappedNameId: "attacker@evil.example" });
    expect(cause).not.toContain("attacker@evil.example");
  });

  it("reads a NameID with a comment in it whole, never cut at the comment", async () => {
    const assertion = await read({ nameId: "a@corp.example", nameIdComment: true });
    expect(assertion.nameId).toBe("a@corp.example.evil.example");
  });

  it("refuses the wrong audience, Destination, Recipient or Issuer", async () => {
    expect(await refused({ audience: "https://other.example/sso/saml/metadata" })).toContain("audience");
    expect(await refused({ destination: "https://other.example/sso/saml/acs" })).toContain("Destination");
    expect(await refused({ recipient: "https://other.example/sso/saml/acs" })).toContain("SubjectConfirmation");
    expect(await refused({ issuer: "https://other-idp.example" })).toContain("Issuer");
  });

  it("refuses a status other than Success", async () => {
    expect(await refused({ status: "urn:oasis:names:tc:SAML:2.0:status:Requester" })).toContain("status");
  });

  it("refuses an expired assertion, and one not yet valid beyond the skew", async () => {
    await refused({ notBefore: new Date(Date.now() - 10 * 60_000), notOnOrAfter: new Date(Date.now() - 60_000) });
    await refused({ notBefore: new Date(Date.now() + 5 * 60_000) });
    // Within the 30 s skew.
    expect((await read({ notBefore: new Date(Date.now() + 10_000) })).nameId).toBe("a@corp.example");
  });

  it("refuses an answer to another request, or to none when one is expected", async () => {
    expect(await refused({ inResponseTo: "_unknown" }, "_ours")).toContain("_unknown");
    await refused({}, "_ours");
  });

  it("refuses an answer to a request when none is waiting (IdP-initiated)", async () => {
    expect(await refused({ inResponseTo: "_someone-elses" }, null)).toContain("no request is waiting");
  });

  it("refuses a DOCTYPE without reading what its entities name", async () => {
    const doctype = '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>';
    const cause = await refused({ doctype, nameId: "&e;" });
    expect(cause).toContain("DOCTYPE");
    expect(cause).not.toContain("root:");
  });

  it("refuses two assertions, and a response over 256 KiB", async () => {
    expect(await refused({ wrap: "sibling", wrappedNameId: "a@corp.example" })).toContain("2 assertions");
    const cause = await refused({ attributes: { big: "x".repeat(300 * 1024) } });
    expect(cause).toContain("262144 bytes");
  });

  it("refuses an encrypted assertion when they are not allowed", async () => {
    const encrypted = Buffer.from(
      Buffer.from(idp.response({}), "base64")
        .toString()
        .replace(
          /<saml:Assertion[\s\S]*<\/saml:Assertion>/,
          '<saml:EncryptedAssertion><xenc:EncryptedData xmlns:xenc="http://www.w3.org/2001/04/xmlenc#"/></saml:EncryptedAssertion>',
        ),
    ).toString("base64");
    await expect(
      provider().readAssertion({ idp: metadata, samlResponse: encrypted, inResponseTo: null }),
    ).rejects.toMatchObject({ message: "SAML Assertion is not valid" });
  });

  it("refuses a SAMLResponse that is not base64", async () => {
    await expect(
      provider().readAssertion({ idp: metadata, samlResponse: "not base64!", inResponseTo: null }),
    ).rejects.toMatchObject({ code: "validation_failed", message: "SAML Assertion is not valid" });
  });
});
