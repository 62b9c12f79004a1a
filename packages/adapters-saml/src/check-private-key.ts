import { createPrivateKey, type KeyObject } from "node:crypto";

/** Standard alphabet with its padding: what GoTrue's base64.StdEncoding decodes. */
const STANDARD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * GoTrue's checks of SAML_PRIVATE_KEY, with its messages: null when the key will do. Decoding is strict (Node's
 * Buffer.from would skip what is not base64), and the text must be what encoding the bytes gives back.
 */
export function checkSamlPrivateKey(base64: string): string | null {
  const der = Buffer.from(base64, "base64");
  if (!STANDARD_BASE64.test(base64) || der.toString("base64") !== base64) {
    return "SAML private key not in standard Base64 format";
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: der, format: "der", type: "pkcs1" });
  } catch {
    return "SAML private key not in PKCS#1 format";
  }
  // OpenSSL takes `type` as a hint and reads PKCS#8 too: the bytes must be what PKCS#1 encoding gives back.
  if (key.asymmetricKeyType === "rsa" && !key.export({ format: "der", type: "pkcs1" }).equals(der)) {
    return "SAML private key not in PKCS#1 format";
  }
  const details = key.asymmetricKeyDetails;
  if (key.asymmetricKeyType !== "rsa" || details?.publicExponent !== 65537n) {
    return "SAML private key should use the 65537 (0x10001) RSA public exponent";
  }
  if ((details.modulusLength ?? 0) < 2048) return "SAML private key must be at least RSA 2048";
  return null;
}
