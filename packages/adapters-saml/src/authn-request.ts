import { randomBytes } from "node:crypto";
import querystring from "node:querystring";
import { AuthError, type SamlIdpMetadata, type SamlNameIdFormat } from "@latchkey/domain";
import { SAML } from "@node-saml/node-saml";
import type { SamlServiceProviderKey } from "./service-provider-key.ts";

export interface AuthnRequestInput {
  readonly entityId: string;
  readonly acsUrl: string;
  readonly key: SamlServiceProviderKey;
  readonly idp: SamlIdpMetadata;
  readonly relayState: string;
  readonly nameIdFormat: SamlNameIdFormat;
}

/** The parameters of the HTTP-Redirect binding, the signed ones in the order the signature covers them. */
const BINDING = ["SAMLRequest", "RelayState", "SigAlg", "Signature"] as const;

/** An ID as GoTrue makes them: an NCName (so not starting with a digit) with 160 random bits. */
const requestId = () => `_${randomBytes(20).toString("hex")}`;

/**
 * A signed AuthnRequest with the HTTP-Redirect binding, made by node-saml: DEFLATE, base64, RSA-SHA256 over
 * `SAMLRequest=…&RelayState=…&SigAlg=…`. node-saml signs the parameters as querystring encodes them but writes them
 * with URLSearchParams, which encodes some characters differently (a space, `~`, `'`, `(`, `)`, `*`, `!`); IdPs
 * verify over the bytes received, so the binding's parameters are written again here as they were signed. Whatever
 * query the IdP's URL had is kept in front of them.
 */
export async function authnRequest(input: AuthnRequestInput): Promise<{ url: string; requestId: string }> {
  const entryPoint = input.idp.ssoRedirectUrl;
  if (entryPoint === null) {
    throw new AuthError("validation_failed", "SAML identity provider has no HTTP-Redirect SingleSignOnService", {
      cause: `the metadata of ${input.idp.entityId} names no SingleSignOnService with the HTTP-Redirect binding`,
    });
  }
  const id = requestId();
  const saml = new SAML({
    entryPoint,
    issuer: input.entityId,
    callbackUrl: input.acsUrl,
    privateKey: input.key.privateKeyPem,
    signatureAlgorithm: "sha256",
    identifierFormat: input.nameIdFormat,
    // Not used for a request, but node-saml wants it; the IdP's certificates check its answers elsewhere.
    idpCert: input.idp.signingCertificates.length > 0 ? [...input.idp.signingCertificates] : "unused",
    disableRequestedAuthnContext: true,
    generateUniqueId: () => id,
  });
  const signed = new URL(await saml.getAuthorizeUrlAsync(input.relayState, undefined, {}));
  const target = new URL(entryPoint);
  const kept = target.search
    .slice(1)
    .split("&")
    .filter((pair) => pair !== "" && !(BINDING as readonly string[]).includes(decodeName(pair)));
  const binding = BINDING.flatMap((name) => {
    const value = signed.searchParams.get(name);
    return value === null ? [] : [`${name}=${querystring.escape(value)}`];
  });
  // Assigned to `search`, the query would be encoded again (`'` for one).
  const hash = target.hash;
  target.search = "";
  target.hash = "";
  return { url: `${target.toString()}?${[...kept, ...binding].join("&")}${hash}`, requestId: id };
}

function decodeName(pair: string): string {
  const name = pair.split("=")[0] ?? "";
  try {
    return decodeURIComponent(name.replace(/\+/g, " "));
  } catch {
    return name;
  }
}
