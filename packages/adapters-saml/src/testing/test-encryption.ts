import { createCipheriv, createPublicKey, randomBytes } from "node:crypto";
import { encryptKeyInfo } from "xml-encryption";

const XENC = "http://www.w3.org/2001/04/xmlenc#";
const AES256_CBC = `${XENC}aes256-cbc`;
const RSA_OAEP_MGF1P = `${XENC}rsa-oaep-mgf1p`;

/**
 * `<saml:EncryptedAssertion>` holding `assertionXml` (a whole, signed saml:Assertion) encrypted to the service
 * provider's certificate as identity providers do it (Entra ID, AD FS, Okta's default): the content with a fresh
 * AES-256-CBC key (the IV in front of the cipher text, XML Encryption 5.2.1), that key with RSA-OAEP (MGF1, SHA-1)
 * in an EncryptedKey inside the EncryptedData's KeyInfo, naming the certificate. The EncryptedKey is
 * xml-encryption's (what node-saml decrypts with); the content is enciphered here because xml-encryption's
 * `encrypt` answers through a callback on a later turn, and the test IdP's answers are synchronous.
 */
export function encryptedAssertion(assertionXml: string, certificatePem: string): string {
  const key = randomBytes(32);
  const iv = randomBytes(16);
  const cipher = createCipheriv("aes-256-cbc", key, iv);
  const cipherValue = Buffer.concat([iv, cipher.update(assertionXml, "utf8"), cipher.final()]).toString("base64");
  return (
    "<saml:EncryptedAssertion>" +
    `<xenc:EncryptedData xmlns:xenc="${XENC}" Type="${XENC}Element">` +
    `<xenc:EncryptionMethod Algorithm="${AES256_CBC}"/>` +
    encryptedKey(key, certificatePem) +
    `<xenc:CipherData><xenc:CipherValue>${cipherValue}</xenc:CipherValue></xenc:CipherData>` +
    "</xenc:EncryptedData></saml:EncryptedAssertion>"
  );
}

/** The ds:KeyInfo with the content key transported to the certificate's RSA key, by xml-encryption. */
function encryptedKey(key: Buffer, certificatePem: string): string {
  const publicKeyPem = createPublicKey(certificatePem).export({ format: "pem", type: "spki" }).toString();
  let keyInfo: string | undefined;
  // Called before it returns: the RSA encryption and the template are synchronous.
  encryptKeyInfo(
    key,
    { rsa_pub: publicKeyPem, pem: certificatePem, keyEncryptionAlgorithm: RSA_OAEP_MGF1P },
    (error, result) => {
      if (error) throw error;
      keyInfo = result;
    },
  );
  if (keyInfo === undefined) throw new Error("xml-encryption did not encrypt the key synchronously");
  return keyInfo;
}
