import { generateKeyPairSync } from "node:crypto";

/** A fresh RSA key as SAML_PRIVATE_KEY takes it: base64 of its PKCS#1 DER form, 2048 bits by default. */
export function newSamlPrivateKey(bits = 2048): string {
  return generateKeyPairSync("rsa", { modulusLength: bits })
    .privateKey.export({ format: "der", type: "pkcs1" })
    .toString("base64");
}
