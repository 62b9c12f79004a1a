import { generateKeyPairSync, X509Certificate } from "node:crypto";
import { describe, expect, it } from "vitest";
import { checkSamlPrivateKey } from "../src/index.ts";
import { samlServiceProviderKey } from "../src/service-provider.ts";

const pkcs1 = (modulusLength: number, publicExponent = 65537) =>
  generateKeyPairSync("rsa", { modulusLength, publicExponent })
    .privateKey.export({ format: "der", type: "pkcs1" })
    .toString("base64");

const KEY = pkcs1(2048);

describe("checkSamlPrivateKey", () => {
  it("takes an RSA-2048 PKCS#1 key with exponent 65537", () => {
    expect(checkSamlPrivateKey(KEY)).toBeNull();
  });

  it("refuses what is not standard Base64", () => {
    const message = "SAML private key not in standard Base64 format";
    expect(checkSamlPrivateKey(`${KEY}!`)).toBe(message);
    expect(checkSamlPrivateKey(KEY.slice(1))).toBe(message);
    expect(checkSamlPrivateKey(KEY.replace(/[A-Za-z0-9]/, "-"))).toBe(message);
    // Unpadded: "QUJD" is "ABC", "QUI=" is "AB"; Buffer.from would read "QUI" as "AB" too.
    expect(checkSamlPrivateKey(`${KEY}QUI`)).toBe(message);
    expect(checkSamlPrivateKey(`${KEY.slice(0, 40)}\n${KEY.slice(40)}`)).toBe(message);
  });

  it("refuses a PKCS#8 key and bytes that are no key", () => {
    const pkcs8 = generateKeyPairSync("rsa", { modulusLength: 2048 })
      .privateKey.export({ format: "der", type: "pkcs8" })
      .toString("base64");
    expect(checkSamlPrivateKey(pkcs8)).toBe("SAML private key not in PKCS#1 format");
    expect(checkSamlPrivateKey(Buffer.from("not a key").toString("base64"))).toBe(
      "SAML private key not in PKCS#1 format",
    );
  });

  it("refuses another public exponent", () => {
    expect(checkSamlPrivateKey(pkcs1(2048, 3))).toBe(
      "SAML private key should use the 65537 (0x10001) RSA public exponent",
    );
  });

  it("refuses a key under 2048 bits", () => {
    expect(checkSamlPrivateKey(pkcs1(1024))).toBe("SAML private key must be at least RSA 2048");
  });
});

describe("samlServiceProviderKey", () => {
  const input = { privateKeyBase64: KEY, host: "auth.example.com", allowEncryptedAssertions: false };

  it("makes the same certificate from the same key, as GoTrue's", async () => {
    const first = await samlServiceProviderKey(input);
    const again = await samlServiceProviderKey(input);
    expect(again.certificatePem).toBe(first.certificatePem);
    const certificate = new X509Certificate(first.certificatePem);
    expect(certificate.subject).toBe("CN=SAML 2.0 Certificate for auth.example.com");
    expect(certificate.issuer).toBe(certificate.subject);
    expect(certificate.subjectAltName).toBe("DNS:_samlsp.auth.example.com");
    expect(certificate.serialNumber).toBe("01");
    expect(new Date(certificate.validFrom).toISOString()).toBe("1970-01-01T00:00:00.000Z");
    expect(new Date(certificate.validTo).toISOString()).toBe("2170-01-01T00:00:00.000Z");
    expect(
      certificate.checkPrivateKey(await import("node:crypto").then((c) => c.createPrivateKey(first.privateKeyPem))),
    ).toBe(true);
    expect(certificate.verify(certificate.publicKey)).toBe(true);
  });

  it("allows key and data encipherment only when encrypted assertions are", async () => {
    const usage = async (allowEncryptedAssertions: boolean) => {
      const { certificatePem } = await samlServiceProviderKey({ ...input, allowEncryptedAssertions });
      // KeyUsage is a BIT STRING: digitalSignature is bit 0 (0x80), keyEncipherment bit 2 (0x20), dataEncipherment
      // bit 3 (0x10).
      const der = new X509Certificate(certificatePem).raw.toString("hex");
      const at = der.indexOf("0603551d0f");
      return der.slice(at, at + 30);
    };
    expect(await usage(false)).toMatch(/03020780/);
    expect(await usage(true)).toMatch(/030204b0/);
  });

  it("throws for a key the check refuses", async () => {
    await expect(samlServiceProviderKey({ ...input, privateKeyBase64: pkcs1(1024) })).rejects.toThrow(
      "SAML private key must be at least RSA 2048",
    );
  });
});
