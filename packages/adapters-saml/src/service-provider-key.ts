// @peculiar/x509 2 resolves its parts with tsyringe, which needs the Reflect metadata API and leaves loading it to us.
import "reflect-metadata";
import { createPrivateKey, createPublicKey, webcrypto } from "node:crypto";
import {
  KeyUsageFlags,
  KeyUsagesExtension,
  SubjectAlternativeNameExtension,
  X509CertificateGenerator,
} from "@peculiar/x509";
import { checkSamlPrivateKey } from "./check-private-key.ts";

/** Our key pair as the SAML modules take it: the RSA private key and its self-signed certificate, both PEM. */
export interface SamlServiceProviderKey {
  readonly privateKeyPem: string;
  readonly certificatePem: string;
}

export interface SamlServiceProviderKeyInput {
  /** SAML_PRIVATE_KEY: base64 of a PKCS#1 DER RSA private key. */
  readonly privateKeyBase64: string;
  /** The host of the base URL, named in the certificate. */
  readonly host: string;
  /** The certificate then also allows data encipherment, as an IdP encrypting to it may check. */
  readonly allowEncryptedAssertions: boolean;
}

const SIGNING = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" } as const;

/**
 * The private key as PEM and a self-signed certificate for it, with GoTrue's fixed content (serial 1 where it has 0, validity
 * 1970 to 2170, names from the host): made again at every start, it is the same certificate each time (RSA
 * PKCS#1 v1.5 signatures are deterministic), so the metadata identity providers cached stays true.
 */
export async function samlServiceProviderKey(input: SamlServiceProviderKeyInput): Promise<SamlServiceProviderKey> {
  const problem = checkSamlPrivateKey(input.privateKeyBase64);
  if (problem !== null) throw new Error(problem);
  const privateKey = createPrivateKey({
    key: Buffer.from(input.privateKeyBase64, "base64"),
    format: "der",
    type: "pkcs1",
  });
  const keys = {
    privateKey: await webcrypto.subtle.importKey(
      "pkcs8",
      privateKey.export({ format: "der", type: "pkcs8" }),
      SIGNING,
      false,
      ["sign"],
    ),
    publicKey: await webcrypto.subtle.importKey(
      "spki",
      createPublicKey(privateKey).export({ format: "der", type: "spki" }),
      SIGNING,
      true,
      ["verify"],
    ),
  };
  // GoTrue's certificate adds dataEncipherment for encryption; keyEncipherment (ours) is what RSA key transport,
  // which encrypted assertions use, strictly calls for, so an IdP that checks finds it.
  const usages = input.allowEncryptedAssertions
    ? KeyUsageFlags.digitalSignature | KeyUsageFlags.keyEncipherment | KeyUsageFlags.dataEncipherment
    : KeyUsageFlags.digitalSignature;
  const certificate = await X509CertificateGenerator.createSelfSigned(
    {
      // GoTrue's serial is 0; @peculiar/x509 takes an all-zero serial for "none" and draws a random one.
      serialNumber: "01",
      name: [{ CN: [`SAML 2.0 Certificate for ${input.host}`] }],
      notBefore: new Date("1970-01-01T00:00:00Z"),
      notAfter: new Date("2170-01-01T00:00:00Z"),
      signingAlgorithm: SIGNING,
      keys,
      extensions: [
        new KeyUsagesExtension(usages, true),
        new SubjectAlternativeNameExtension([{ type: "dns", value: `_samlsp.${input.host}` }]),
      ],
    },
    webcrypto as unknown as Parameters<typeof X509CertificateGenerator.createSelfSigned>[1],
  );
  return {
    privateKeyPem: privateKey.export({ format: "pem", type: "pkcs1" }).toString(),
    certificatePem: certificate.toString("pem"),
  };
}
