import { AuthError } from "@latchkey/domain";
import { describe, expect, it } from "vitest";
import { createSamlMetadataReader } from "../src/index.ts";

const reader = createSamlMetadataReader({ timeoutMs: 1_000, maxBytes: 1_000_000 });

// Base64 of no real certificate: the reader passes certificates on, it does not decode them.
const SIGNING_CERT = "MIIDpDCCAoygAwIBAgIGAXsigning0AQEL";
const ENCRYPTION_CERT = "MIIDpDCCAoygAwIBAgIGAXencrypt0AQEL";
const REDIRECT = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect";
const POST = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST";

/** As Okta serves it: default namespace, a KeyDescriptor each for signing and encryption, POST before Redirect. */
const OKTA = `<?xml version="1.0" encoding="UTF-8"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="http://www.okta.com/exk1abcd2EFGH3ijk4l5">
  <md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing">
      <ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#">
        <ds:X509Data>
          <ds:X509Certificate>MIIDpDCCAoygAwIBAgIGAXsigning
            0AQEL</ds:X509Certificate>
        </ds:X509Data>
      </ds:KeyInfo>
    </md:KeyDescriptor>
    <md:KeyDescriptor use="encryption">
      <ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#">
        <ds:X509Data><ds:X509Certificate>${ENCRYPTION_CERT}</ds:X509Certificate></ds:X509Data>
      </ds:KeyInfo>
    </md:KeyDescriptor>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified</md:NameIDFormat>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
    <md:SingleSignOnService Binding="${POST}" Location="https://acme.okta.com/app/acme_latchkey_1/exk1abcd2EFGH3ijk4l5/sso/saml"/>
    <md:SingleSignOnService Binding="${REDIRECT}" Location="https://acme.okta.com/app/acme_latchkey_1/exk1abcd2EFGH3ijk4l5/sso/saml?redirect=1"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;

/** As Entra ID and ADFS serve it, cut down: a signature, a role descriptor, a KeyDescriptor without `use`. */
const ENTRA = `\uFEFF<?xml version="1.0" encoding="utf-8"?>
<md:EntityDescriptor ID="_5a1c0c7e-1f2b-4c3d-9e8f-0a1b2c3d4e5f" entityID="https://sts.windows.net/72f988bf-86f1-41af-91ab-2d7cd011db47/" validUntil="2031-03-04T05:06:07.1234567Z" cacheDuration="P1DT2H30M" xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata">
  <Signature xmlns="http://www.w3.org/2000/09/xmldsig#">
    <SignedInfo><SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/></SignedInfo>
    <SignatureValue>c2lnbmF0dXJl</SignatureValue>
    <KeyInfo><X509Data><X509Certificate>NOT-AN-IDP-KEY</X509Certificate></X509Data></KeyInfo>
  </Signature>
  <md:RoleDescriptor xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:fed="http://docs.oasis-open.org/wsfed/federation/200706" xsi:type="fed:SecurityTokenServiceType" protocolSupportEnumeration="http://docs.oasis-open.org/wsfed/federation/200706">
    <md:KeyDescriptor use="signing"><KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#"><X509Data><X509Certificate>ROLE-DESCRIPTOR-KEY</X509Certificate></X509Data></KeyInfo></md:KeyDescriptor>
  </md:RoleDescriptor>
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor>
      <KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#">
        <X509Data>
          <X509Certificate>
            MIIC8DCCAdigAwIBAgIQentra
            AAAA/+==
          </X509Certificate>
        </X509Data>
      </KeyInfo>
    </md:KeyDescriptor>
    <md:SingleLogoutService Binding="${REDIRECT}" Location="https://login.microsoftonline.com/72f988bf/saml2/logout"/>
    <md:SingleSignOnService Binding="${REDIRECT}" Location="https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/saml2"/>
    <md:SingleSignOnService Binding="${POST}" Location="https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/saml2/post"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;

/** A federation's aggregate: a service provider first, the identity provider second, in a nested group. */
const AGGREGATE = `<?xml version="1.0"?>
<EntitiesDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" Name="urn:example:federation">
  <EntityDescriptor entityID="https://sp.example.org/shibboleth">
    <SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
      <AssertionConsumerService Binding="${POST}" Location="https://sp.example.org/acs" index="0"/>
    </SPSSODescriptor>
  </EntityDescriptor>
  <EntitiesDescriptor Name="urn:example:federation:idps">
    <EntityDescriptor entityID="https://idp.example.org/idp/shibboleth" cacheDuration="PT90S">
      <IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
        <KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>SHIB</ds:X509Certificate></ds:X509Data></ds:KeyInfo></KeyDescriptor>
        <SingleSignOnService Binding="${POST}" Location="https://idp.example.org/idp/profile/SAML2/POST/SSO"/>
      </IDPSSODescriptor>
    </EntityDescriptor>
  </EntitiesDescriptor>
</EntitiesDescriptor>`;

const MD_NS = 'xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata"';
/** A minimal IdP with the EntityDescriptor's attributes and body given. */
const idp = (attributes: string, body = "<md:IDPSSODescriptor/>") =>
  `<md:EntityDescriptor ${MD_NS} ${attributes}>${body}</md:EntityDescriptor>`;

function refusal(xml: string): AuthError {
  let thrown: unknown;
  try {
    reader.parse(xml);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(AuthError);
  expect((thrown as AuthError).code).toBe("validation_failed");
  return thrown as AuthError;
}

describe("parsing SAML metadata", () => {
  it("reads Okta's: the Redirect location, the signing certificate only, no limits", () => {
    expect(reader.parse(OKTA)).toEqual({
      entityId: "http://www.okta.com/exk1abcd2EFGH3ijk4l5",
      ssoRedirectUrl: "https://acme.okta.com/app/acme_latchkey_1/exk1abcd2EFGH3ijk4l5/sso/saml?redirect=1",
      signingCertificates: [SIGNING_CERT],
      validUntil: null,
      cacheDurationSeconds: null,
    });
  });

  it("reads Entra's: a KeyDescriptor without use signs, the document's signature and other roles do not", () => {
    expect(reader.parse(ENTRA)).toEqual({
      entityId: "https://sts.windows.net/72f988bf-86f1-41af-91ab-2d7cd011db47/",
      ssoRedirectUrl: "https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/saml2",
      signingCertificates: ["MIIC8DCCAdigAwIBAgIQentraAAAA/+=="],
      validUntil: new Date("2031-03-04T05:06:07.123Z"),
      cacheDurationSeconds: 86_400 + 2 * 3_600 + 30 * 60,
    });
  });

  it("takes from an EntitiesDescriptor the first entity that is an IdP, however deep", () => {
    expect(reader.parse(AGGREGATE)).toEqual({
      entityId: "https://idp.example.org/idp/shibboleth",
      ssoRedirectUrl: null,
      signingCertificates: ["SHIB"],
      validUntil: null,
      cacheDurationSeconds: 90,
    });
  });

  it.each([
    ["PT1H", 3_600],
    ["P1DT2H30M", 95_400],
    ["PT90S", 90],
    ["PT1.5S", 1.5],
    ["P1Y2M", 365 * 86_400 + 60 * 86_400],
    ["P0D", 0],
  ])("reads cacheDuration %s as %d seconds", (duration, seconds) => {
    expect(reader.parse(idp(`entityID="e" cacheDuration="${duration}"`)).cacheDurationSeconds).toBe(seconds);
  });

  it.each(["P", "PT", "1H", "PT1H30", "P1H", "-PT1H", "PT1,5S", ""])("refuses cacheDuration %j", (duration) => {
    expect(refusal(idp(`entityID="e" cacheDuration="${duration}"`)).message).toBe(
      `SAML Metadata's cacheDuration is not a valid xs:duration: '${duration}'`,
    );
  });

  it.each([
    ["2030-01-02T03:04:05Z", "2030-01-02T03:04:05.000Z"],
    ["2030-01-02T03:04:05.5+02:00", "2030-01-02T01:04:05.500Z"],
    // Without a zone it is UTC, whatever the host's zone.
    ["2030-01-02T03:04:05", "2030-01-02T03:04:05.000Z"],
  ])("reads validUntil %s", (text, iso) => {
    expect(reader.parse(idp(`entityID="e" validUntil="${text}"`)).validUntil?.toISOString()).toBe(iso);
  });

  it.each(["tomorrow", "2030-01-02", "2030-13-45T99:00:00Z", ""])("refuses validUntil %j", (text) => {
    expect(refusal(idp(`entityID="e" validUntil="${text}"`)).message).toBe(
      `SAML Metadata's validUntil is not a valid xs:dateTime: '${text}'`,
    );
  });

  it.each([
    ["a replacement character", `${OKTA.slice(0, 60)}\uFFFD${OKTA.slice(60)}`],
    ["a lone surrogate", OKTA.replace("exk1abcd", "exk1\uD800abcd")],
  ])("refuses %s as invalid UTF-8, in GoTrue's words", (_, xml) => {
    expect(refusal(xml).message).toBe(
      "SAML Metadata XML contains invalid UTF-8 characters, which are not supported at this time",
    );
  });

  it("refuses an external entity (XXE) for its DOCTYPE", () => {
    const xxe = `<?xml version="1.0"?>\n<!DOCTYPE md:EntityDescriptor [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n${idp('entityID="&xxe;"')}`;
    expect(refusal(xxe).message).toBe("SAML Metadata must not contain a document type declaration (DOCTYPE)");
  });

  it("refuses billion laughs for its DOCTYPE", () => {
    const levels = Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`).join("");
    const laughs = `<!DOCTYPE lolz [<!ENTITY lol0 "lol">${levels}]>${idp('entityID="&lol9;"')}`;
    expect(refusal(laughs).message).toBe("SAML Metadata must not contain a document type declaration (DOCTYPE)");
    // However it is cased.
    expect(refusal(`<!doctype x>${idp('entityID="e"')}`).message).toMatch(/DOCTYPE/);
  });

  it.each([
    ["a mismatched end tag", `<md:EntityDescriptor ${MD_NS} entityID="e"><md:IDPSSODescriptor></md:EntityDescriptor>`],
    ["an unclosed element", `<md:EntityDescriptor ${MD_NS} entityID="e"><md:IDPSSODescriptor/>`],
    ["an unquoted attribute", `<md:EntityDescriptor ${MD_NS} entityID=e><md:IDPSSODescriptor/></md:EntityDescriptor>`],
    ["an unknown entity", idp('entityID="&nope;"')],
    ["two roots", `${idp('entityID="e"')}${idp('entityID="f"')}`],
    ["no markup", "not XML at all"],
    ["nothing", ""],
  ])("refuses %s as not well-formed", (_, xml) => {
    const { message } = refusal(xml);
    expect(message).toMatch(/^SAML Metadata is not valid XML: \S/);
    // xmldom's first complaint, once: not one it made of a handler's error, nor its markers.
    expect(message.match(/not valid XML|AuthError|@#|\[xmldom/g)).toEqual(["not valid XML"]);
  });

  it("says where xmldom found the problem", () => {
    expect(refusal(idp('entityID="&nope;"')).message).toMatch(
      /^SAML Metadata is not valid XML: entity not found:&nope; \(line 1, column \d+\)$/,
    );
  });

  it.each([
    ["an SP's metadata, unwrapped", '<EntityDescriptorX xmlns="urn:oasis:names:tc:SAML:2.0:metadata"/>'],
    [
      "an EntityDescriptor outside the metadata namespace",
      '<EntityDescriptor entityID="e"><IDPSSODescriptor/></EntityDescriptor>',
    ],
    ["an HTML page", "<html><body>Sign in</body></html>"],
  ])("refuses %s for its root", (_, xml) => {
    expect(refusal(xml).message).toMatch(
      /^SAML Metadata's root element must be an EntityDescriptor or EntitiesDescriptor/,
    );
  });

  it("refuses an EntitiesDescriptor with no EntityDescriptor", () => {
    expect(refusal('<EntitiesDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata"/>').message).toBe(
      "SAML Metadata's EntitiesDescriptor contains no EntityDescriptor",
    );
  });

  it.each([
    ["missing", idp("")],
    ["empty", idp('entityID=""')],
    ["blank", idp('entityID="  "')],
  ])("refuses an EntityID %s, in GoTrue's words", (_, xml) => {
    expect(refusal(xml).message).toBe("SAML Metadata does not contain an EntityID");
  });

  it("refuses metadata without an IDPSSODescriptor, in GoTrue's words, an aggregate of SPs too", () => {
    const message = "SAML Metadata does not contain any IDPSSODescriptor";
    expect(refusal(idp('entityID="e"', "<md:SPSSODescriptor/>")).message).toBe(message);
    expect(refusal(AGGREGATE.replace(/IDPSSODescriptor/g, "SPSSODescriptor")).message).toBe(message);
    // One in another namespace is not one.
    expect(refusal(idp('entityID="e"', '<IDPSSODescriptor xmlns="urn:example"/>')).message).toBe(message);
  });

  it("refuses two IDPSSODescriptors, in GoTrue's words", () => {
    expect(refusal(idp('entityID="e"', "<md:IDPSSODescriptor/><md:IDPSSODescriptor/>")).message).toBe(
      "SAML Metadata contains multiple IDPSSODescriptors",
    );
  });

  it("answers no Redirect location and no certificates when the IdP offers none", () => {
    const body = `<md:IDPSSODescriptor><md:SingleSignOnService Binding="${POST}" Location="https://idp/post"/></md:IDPSSODescriptor>`;
    expect(reader.parse(idp('entityID="e"', body))).toMatchObject({ ssoRedirectUrl: null, signingCertificates: [] });
  });
});
