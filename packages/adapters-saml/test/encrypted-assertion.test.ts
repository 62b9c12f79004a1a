import { generateKeyPairSync } from "node:crypto";
import { AuthError, type SamlIdpMetadata } from "@latchkey/domain";
import { DOMParser } from "@xmldom/xmldom";
import { beforeAll, describe, expect, it } from "vitest";
import { createSamlMetadataReader } from "../src/index.ts";
import {
  createSamlServiceProvider,
  type SamlServiceProviderKey,
  samlServiceProviderKey,
} from "../src/service-provider.ts";
import { createTestIdp, type TestIdp, type TestResponseOptions } from "../src/testing/index.ts";

// Encrypted assertions (SAML_ALLOW_ENCRYPTED_ASSERTIONS): the test IdP signs the assertion, then encrypts it to a
// certificate of ours (AES-256-CBC, RSA-OAEP), and node-saml decrypts it with our key, then the next one.

const SP = { entityId: "https://auth.example.com/sso/saml/metadata", acsUrl: "https://auth.example.com/sso/saml/acs" };
const EMAIL = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";
const MD = "urn:oasis:names:tc:SAML:2.0:metadata";
const XENC = "http://www.w3.org/2001/04/xmlenc#";

const rsaKey = () => generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
const newKey = () =>
  samlServiceProviderKey({
    privateKeyBase64: rsaKey().export({ format: "der", type: "pkcs1" }).toString("base64"),
    host: "auth.example.com",
    allowEncryptedAssertions: true,
  });

let key: SamlServiceProviderKey;
let nextKey: SamlServiceProviderKey;
/** A key that is neither ours nor the next. */
let strangerKey: SamlServiceProviderKey;
let idp: TestIdp;
let metadata: SamlIdpMetadata;

beforeAll(async () => {
  [key, nextKey, strangerKey, idp] = await Promise.all([
    newKey(),
    newKey(),
    newKey(),
    createTestIdp({ entityId: "https://idp.example.org/saml", ssoUrl: "https://idp.example.org/sso", sp: SP }),
  ]);
  metadata = createSamlMetadataReader({ timeoutMs: 1_000, maxBytes: 1_000_000 }).parse(idp.metadataXml);
});

const provider = (options: { allowEncryptedAssertions: boolean; nextKey?: SamlServiceProviderKey }) =>
  createSamlServiceProvider({
    baseUrl: "https://auth.example.com",
    key,
    nextKey: options.nextKey ?? null,
    allowEncryptedAssertions: options.allowEncryptedAssertions,
  });

const allowing = () => provider({ allowEncryptedAssertions: true });
const rotating = () => provider({ allowEncryptedAssertions: true, nextKey });

const read = (sp: ReturnType<typeof provider>, options: TestResponseOptions, inResponseTo: string | null = null) =>
  sp.readAssertion({ idp: metadata, samlResponse: idp.response(options), inResponseTo });

/** Refused with the port's error; the reason (its cause) returned to check it is the expected one. */
async function refused(sp: ReturnType<typeof provider>, options: TestResponseOptions): Promise<string> {
  const error = await read(sp, options).then(
    (assertion) => assertion,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AuthError);
  expect(error).toMatchObject({ code: "validation_failed", message: "SAML Assertion is not valid" });
  return String((error as AuthError).cause);
}

describe("the test IdP's encrypted answer", () => {
  it("carries the signed assertion only as a saml:EncryptedAssertion, AES-256-CBC, its key RSA-OAEP", () => {
    const xml = Buffer.from(idp.response({ encryptFor: key.certificatePem, nameId: "secret@corp.example" }), "base64")
      .toString()
      .trim();
    expect(xml).not.toContain("secret@corp.example");
    const response = new DOMParser().parseFromString(xml, "application/xml").documentElement!;
    expect(response.getElementsByTagNameNS("urn:oasis:names:tc:SAML:2.0:assertion", "Assertion")).toHaveLength(0);
    const encrypted = response.getElementsByTagNameNS("urn:oasis:names:tc:SAML:2.0:assertion", "EncryptedAssertion");
    expect(encrypted).toHaveLength(1);
    const methods = Array.from(encrypted[0]!.getElementsByTagNameNS(XENC, "EncryptionMethod")).map((method) =>
      method.getAttribute("Algorithm"),
    );
    expect(methods).toEqual([`${XENC}aes256-cbc`, `${XENC}rsa-oaep-mgf1p`]);
  });
});

describe("readAssertion of an encrypted assertion", () => {
  it("reads one encrypted to our certificate when they are allowed: the values of the signed assertion", async () => {
    const notOnOrAfter = new Date(Date.now() + 4 * 60_000);
    const sessionNotOnOrAfter = new Date(Date.now() + 8 * 3600_000);
    const assertion = await read(allowing(), {
      encryptFor: key.certificatePem,
      assertionId: "_encrypted-1",
      nameId: "jane@corp.example",
      notOnOrAfter,
      sessionNotOnOrAfter,
      attributes: { email: "jane@corp.example", groups: ["admins", "staff"] },
    });
    expect(assertion).toEqual({
      id: "_encrypted-1",
      issuer: "https://idp.example.org/saml",
      nameId: "jane@corp.example",
      nameIdFormat: EMAIL,
      attributes: [
        { name: "email", friendlyName: null, values: ["jane@corp.example"] },
        { name: "groups", friendlyName: null, values: ["admins", "staff"] },
      ],
      expiresAt: new Date(notOnOrAfter.toISOString()),
      sessionNotOnOrAfter: new Date(sessionNotOnOrAfter.toISOString()),
    });
  });

  it("reads one answering our request, and one in a signed response", async () => {
    const sp = allowing();
    const { requestId } = await sp.authnRequest({ idp: metadata, relayState: "r", nameIdFormat: EMAIL });
    const answer = await read(sp, { encryptFor: key.certificatePem, inResponseTo: requestId }, requestId);
    expect(answer.nameId).toBe("a@corp.example");
    expect((await read(sp, { encryptFor: key.certificatePem, sign: "both" })).nameId).toBe("a@corp.example");
  });

  it("reads one encrypted to the next certificate while it rotates in, with ours still read", async () => {
    const sp = rotating();
    const next = await read(sp, { encryptFor: nextKey.certificatePem, nameId: "next@corp.example" });
    expect(next.nameId).toBe("next@corp.example");
    expect((await read(sp, { encryptFor: key.certificatePem })).nameId).toBe("a@corp.example");
  });

  it("refuses one encrypted to the next certificate when no next key is set", async () => {
    await refused(allowing(), { encryptFor: nextKey.certificatePem });
  });

  it("refuses one when encrypted assertions are not allowed, whichever of our keys it is encrypted to", async () => {
    const notAllowed = provider({ allowEncryptedAssertions: false, nextKey });
    expect(await refused(notAllowed, { encryptFor: key.certificatePem })).toContain(
      "encrypted assertions are not allowed",
    );
    expect(await refused(notAllowed, { encryptFor: nextKey.certificatePem })).toContain(
      "encrypted assertions are not allowed",
    );
  });

  it("refuses one encrypted to a key that is neither ours nor the next, saying what each key met", async () => {
    const reason = await refused(rotating(), { encryptFor: strangerKey.certificatePem });
    expect(reason).toContain("no key of ours decrypts the assertion (the key: ");
    expect(reason).toContain("; the next key: ");
  });

  it("refuses a document type declaration inside the encrypted content", async () => {
    const doctype = '<!DOCTYPE Assertion [<!ENTITY x "y">]>';
    expect(await refused(rotating(), { encryptFor: key.certificatePem, encryptedPrefix: doctype })).toContain(
      "document type declaration",
    );
  });

  it("says why an assertion encrypted to the next key is refused, not what the current key met", async () => {
    const past = new Date(Date.now() - 3_600_000);
    const reason = await refused(rotating(), {
      encryptFor: nextKey.certificatePem,
      notBefore: new Date(past.getTime() - 60_000),
      notOnOrAfter: past,
    });
    expect(reason).not.toContain("oaep");
  });

  it("refuses an encrypted assertion that is not signed, and one signed by another key", async () => {
    const sp = rotating();
    expect(await refused(sp, { encryptFor: key.certificatePem, sign: "none" })).toContain("signature");
    // A signed Response does not vouch for the encrypted assertion inside it: its own signature must.
    expect(await refused(sp, { encryptFor: key.certificatePem, sign: "response" })).toContain("signature");
    const stranger = rsaKey().export({ format: "pem", type: "pkcs8" }).toString();
    expect(await refused(sp, { encryptFor: key.certificatePem, signingKeyPem: stranger })).toContain("signature");
  });

  it("refuses one beside a forged plain assertion, and one for another audience", async () => {
    const sp = allowing();
    const wrapped = {
      encryptFor: key.certificatePem,
      wrap: "sibling",
      wrappedNameId: "attacker@evil.example",
    } as const;
    expect(await refused(sp, wrapped)).toContain("2 assertions");
    expect(await refused(sp, { encryptFor: key.certificatePem, audience: "https://other.example/metadata" })).toContain(
      "audience",
    );
  });
});

describe("the metadata's encryption certificates", () => {
  const certificates = async (sp: ReturnType<typeof provider>, use: string) => {
    const xml = await sp.metadata({ validUntil: null, cacheDurationSeconds: null });
    return Array.from(
      new DOMParser().parseFromString(xml, "application/xml").getElementsByTagNameNS(MD, "KeyDescriptor"),
    )
      .filter((descriptor) => descriptor.getAttribute("use") === use)
      .map((descriptor) => (descriptor.textContent ?? "").replace(/\s+/g, ""));
  };
  const body = (pem: string) => pem.replace(/-----[A-Z ]+-----|\s+/g, "");

  it("are ours and the next only when encrypted assertions are allowed", async () => {
    const both = [body(key.certificatePem), body(nextKey.certificatePem)];
    expect(await certificates(rotating(), "encryption")).toEqual(both);
    expect(await certificates(allowing(), "encryption")).toEqual([body(key.certificatePem)]);
    const notAllowed = provider({ allowEncryptedAssertions: false, nextKey });
    expect(await certificates(notAllowed, "signing")).toEqual(both);
    expect(await certificates(notAllowed, "encryption")).toEqual([]);
  });
});
