import { promisify } from "node:util";
import { type Document, XMLSerializer } from "@xmldom/xmldom";
import * as xmlenc from "xml-encryption";
import type { SamlServiceProviderKey } from "./service-provider-key.ts";
import { childrenNamed, parseStrictXml, SAML } from "./strict-xml.ts";

const decrypt = promisify(xmlenc.decrypt) as (xml: string, options: { key: string }) => Promise<string>;

/**
 * The response with its EncryptedAssertion, if it has one, replaced by the assertion it holds, decrypted with the
 * first of `keys` that can (SAML_PRIVATE_KEY, then SAML_PRIVATE_KEY_NEXT, as GoTrue tries them); null when there
 * is nothing to decrypt. Done here rather than by node-saml so that the plaintext goes through the same strict
 * parse as the response (no DTD: node-saml's parser would take one), and so that a refusal names its true reason
 * (which key failed and why) once; the signature inside is then node-saml's to check, as for a plain assertion.
 * Throws an Error saying why it cannot.
 */
export async function decryptAssertion(
  document: Document,
  keys: readonly SamlServiceProviderKey[],
): Promise<Document | null> {
  const response = document.documentElement!;
  const [encrypted] = childrenNamed(response, SAML, "EncryptedAssertion");
  if (encrypted === undefined) return null;
  if (keys.length === 0) throw new Error("the assertion is encrypted, and encrypted assertions are not allowed");
  const failures: string[] = [];
  let plaintext: string | undefined;
  for (const [index, key] of keys.entries()) {
    try {
      plaintext = await decrypt(new XMLSerializer().serializeToString(encrypted), { key: key.privateKeyPem });
      break;
    } catch (error) {
      failures.push(`${index === 0 ? "the key" : "the next key"}: ${error instanceof Error ? error.message : error}`);
    }
  }
  if (plaintext === undefined) throw new Error(`no key of ours decrypts the assertion (${failures.join("; ")})`);
  const assertion = parseStrictXml(plaintext).documentElement!;
  if (assertion.namespaceURI !== SAML || assertion.localName !== "Assertion") {
    throw new Error(`the encrypted content is ${assertion.nodeName}, not a saml:Assertion`);
  }
  response.replaceChild(document.importNode(assertion, true), encrypted);
  return document;
}
