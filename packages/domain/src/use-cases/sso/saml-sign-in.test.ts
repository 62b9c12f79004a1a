import { describe, expect, it } from "vitest";
import type { SamlAssertion, SsoProvider } from "../../model/sso-provider.ts";
import type { TestAuthOptions } from "../../testing/create-test-auth.ts";
import { createTestAuth } from "../../testing/create-test-auth.ts";
import { context, failsWith } from "../../testing/fails-with.ts";
import { FakeOAuthProvider, fakeProfile, providerEmail } from "../../testing/fake-oauth-provider.ts";
import { FakeSamlMetadata, idpMetadataXml } from "../../testing/fake-saml-metadata.ts";
import { FakeSamlServiceProvider, samlAssertion } from "../../testing/fake-saml-service-provider.ts";
import { PKCE_EXAMPLE } from "../../testing/link-through-provider.ts";

const entityId = "https://idp.acme.example/entity";
const siteUrl = "http://localhost:3000";

async function setUp(options: TestAuthOptions = {}) {
  const sp = new FakeSamlServiceProvider();
  const samlMetadata = new FakeSamlMetadata();
  const testAuth = createTestAuth({ ...options, ports: { samlServiceProvider: sp, samlMetadata, ...options.ports } });
  const { sso } = testAuth.auth;
  const provider = await sso.createProvider({
    type: "saml",
    metadataXml: idpMetadataXml(entityId),
    domains: ["acme.example"],
    attributeMapping: {
      keys: { name: { name: "displayName" }, groups: { name: "groups", array: true }, plan: { default: "free" } },
    },
  });
  /** POST /sso then the IdP's answer carrying `fields`, posted to the ACS. */
  const signIn = async (fields: Partial<SamlAssertion> & { email?: string } = {}, start = {}) => {
    await sso.start({ providerId: provider.id, context, ...start });
    const request = sp.requests.at(-1)!;
    const answer = sp.answer(samlAssertion(entityId, testAuth.clock.now(), fields), request.id);
    return sso.completeSaml({ form: { SAMLResponse: answer, RelayState: request.relayState }, context });
  };
  return { ...testAuth, sp, samlMetadata, sso, provider, signIn };
}

const sessionOf = (result: Awaited<ReturnType<Awaited<ReturnType<typeof setUp>>["signIn"]>>) => {
  if (result.kind !== "session") throw new Error(`expected a session, got ${result.kind}`);
  return result.grant;
};

describe("POST /sso", () => {
  it("sends the browser to the IdP of a domain, without regard to case, with a relay state it keeps", async () => {
    const { sso, sp, stores, provider } = await setUp();
    const { url } = await sso.start({ domain: "ACME.example", redirectTo: ["https://elsewhere.example/"], context });
    const request = sp.requests[0]!;
    expect(new URL(url).searchParams.get("RelayState")).toBe(request.relayState);
    expect(request.nameIdFormat).toBe("urn:oasis:names:tc:SAML:2.0:nameid-format:persistent");
    const state = await stores.samlRelayStates.take(request.relayState);
    expect(state).toMatchObject({ ssoProviderId: provider.id, requestId: request.id, codeChallenge: null });
    // Not on the allow list: SITE_URL.
    expect(state?.redirectTo).toBe(siteUrl);
  });

  it("asks for the provider's NameID format when it names one", async () => {
    const { sso, sp, provider } = await setUp();
    const nameIdFormat = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";
    await sso.updateProvider({ provider: provider.id, update: { nameIdFormat } });
    await sso.start({ providerId: provider.id, context });
    expect(sp.requests[0]?.nameIdFormat).toBe(nameIdFormat);
  });

  it("refuses as GoTrue does", async () => {
    const { sso, provider } = await setUp();
    const message = async (input: Parameters<typeof sso.start>[0], code: Parameters<typeof failsWith>[0]) =>
      (await failsWith(code, sso.start(input))).message;
    expect(await message({ providerId: provider.id, domain: "acme.example", context }, "validation_failed")).toBe(
      "Only one of provider_id or domain supported",
    );
    expect(await message({ context }, "validation_failed")).toBe("A provider_id or domain needs to be provided");
    expect(await message({ domain: "other.example", context }, "sso_provider_not_found")).toBe(
      "No SSO provider assigned for this domain",
    );
    expect(await message({ providerId: crypto.randomUUID(), context }, "sso_provider_not_found")).toBe(
      "No such SSO provider",
    );
    await sso.updateProvider({ provider: provider.id, update: { disabled: true } });
    expect(await message({ providerId: provider.id, context }, "sso_provider_disabled")).toBe(
      "SSO Provider is currently disabled",
    );
  });

  it("answers saml_provider_disabled while SAML is off, and counts sign-ins begun per client", async () => {
    const off = await setUp({ policy: { saml: { enabled: false } } });
    await failsWith("saml_provider_disabled", off.sso.start({ domain: "acme.example", context }));
    const limited = await setUp({ policy: { requestLimits: { sso: { events: 1, perSeconds: 300 } } } });
    await limited.sso.start({ domain: "acme.example", context });
    await failsWith("over_request_rate_limit", limited.sso.start({ domain: "acme.example", context }));
  });
});

describe("the ACS", () => {
  it("makes an SSO user of a first sign-in: its address confirmed, its identity sso:<provider>, amr sso/saml", async () => {
    const { signIn, provider, ports, stores, events } = await setUp();
    const grant = sessionOf(
      await signIn({
        attributes: [
          { name: "email", friendlyName: null, values: ["Ada@Acme.example"] },
          { name: "urn:oid:2.16.840.1.113730.3.1.241", friendlyName: "displayName", values: ["Ada Lovelace"] },
          { name: "groups", friendlyName: null, values: ["eng", "admins"] },
        ],
      }),
    );
    const { user } = grant;
    expect(user).toMatchObject({
      email: "ada@acme.example",
      isSsoUser: true,
      appMetadata: { provider: `sso:${provider.id}` },
    });
    expect(user.emailConfirmedAt).not.toBeNull();
    expect(user.identities).toHaveLength(1);
    expect(user.identities[0]).toMatchObject({ provider: `sso:${provider.id}`, providerId: "ada-persistent-id" });
    expect(user.identities[0]?.identityData).toEqual({
      iss: entityId,
      sub: "ada-persistent-id",
      name: "Ada Lovelace",
      custom_claims: { groups: ["eng", "admins"], plan: "free" },
      email: "ada@acme.example",
      email_verified: true,
      phone_verified: false,
    });
    const claims = await ports.signer.verify(grant.accessToken);
    expect(claims["amr"]).toEqual([expect.objectContaining({ method: "sso/saml", provider: provider.id })]);
    // Nobody finds the SSO user by its address: it is its IdP's.
    expect(await stores.users.findByEmail("ada@acme.example")).toBeNull();
    expect(events.recorded).toContainEqual({ kind: "signed_up", provider: "saml" });
    expect(events.recorded).toContainEqual({ kind: "signed_in", method: "sso/saml" });
  });

  it("signs the same NameID in to the same user again, its metadata brought up to date", async () => {
    const { signIn } = await setUp();
    const first = sessionOf(await signIn()).user;
    const again = sessionOf(
      await signIn({
        attributes: [
          { name: "email", friendlyName: null, values: ["ada@acme.example"] },
          { name: "displayName", friendlyName: null, values: ["Ada King"] },
        ],
      }),
    );
    expect(again.user.id).toBe(first.id);
    expect(again.user.userMetadata["name"]).toBe("Ada King");
  });

  it("ends the session when the IdP says (SessionNotOnOrAfter)", async () => {
    const { signIn, clock } = await setUp();
    const end = new Date(clock.now().getTime() + 3_600_000);
    expect(sessionOf(await signIn({ sessionNotOnOrAfter: end })).session.notAfter).toEqual(end);
  });

  it("never links an SSO sign-in to an account of the same address, nor an account to the SSO user", async () => {
    const { signIn, auth, stores } = await setUp({ policy: { signup: { emailAutoconfirm: true } } });
    await auth.signUp({ email: "ada@acme.example", password: "a-long-password-1", context });
    const sso = sessionOf(await signIn()).user;
    const owner = await stores.users.findByEmail("ada@acme.example");
    expect(owner?.id).not.toBe(sso.id);
    expect(owner?.identities.map((identity) => identity.provider)).toEqual(["email"]);
    const signedIn = await auth.signInWithPassword({
      email: "ada@acme.example",
      password: "a-long-password-1",
      context,
    });
    expect(signedIn.user.id).toBe(owner?.id);
  });

  it("keeps an SSO user out of other providers' sign-ins with its address", async () => {
    const github = new FakeOAuthProvider();
    github.profile = fakeProfile("1001", [providerEmail("ada@acme.example", true)]);
    const { signIn, auth } = await setUp({ ports: { oauthProviders: new Map([[github.name, github]]) } });
    const sso = sessionOf(await signIn()).user;
    await auth.oauth.start({ provider: github.name, params: [] });
    const result = await auth.oauth.complete({ params: { state: github.lastState, code: "4/0AbCdEf" }, context });
    if (result.kind !== "session") throw new Error(`expected a session, got ${result.kind}`);
    expect(result.grant.user.id).not.toBe(sso.id);
    expect(result.grant.user.isSsoUser).toBe(false);
  });

  it("ends a PKCE sign-in in a code that the verifier trades for an sso/saml session", async () => {
    const { signIn, auth } = await setUp();
    const start = { codeChallenge: PKCE_EXAMPLE.challenge, codeChallengeMethod: "s256" };
    const result = await signIn({}, start);
    if (result.kind !== "auth_code") throw new Error(`expected a code, got ${result.kind}`);
    const grant = await auth.exchangeAuthCode({
      authCode: result.authCode,
      codeVerifier: PKCE_EXAMPLE.verifier,
      context,
    });
    expect(grant.session.amr[0]?.method).toBe("sso/saml");
    expect(grant.user.isSsoUser).toBe(true);
  });

  it("takes a relay state once, and not once it has expired", async () => {
    const { sso, sp, clock, provider } = await setUp();
    await sso.start({ providerId: provider.id, context });
    const request = sp.requests[0]!;
    const answer = sp.answer(samlAssertion(entityId, clock.now()), request.id);
    const form = { SAMLResponse: answer, RelayState: request.relayState };
    await sso.completeSaml({ form, context });
    await failsWith("saml_relay_state_not_found", sso.completeSaml({ form, context }));

    await sso.start({ providerId: provider.id, context });
    const late = sp.requests[1]!;
    clock.advance({ seconds: 120 });
    const lateAnswer = sp.answer(samlAssertion(entityId, clock.now()), late.id);
    const expired = sso.completeSaml({ form: { SAMLResponse: lateAnswer, RelayState: late.relayState }, context });
    await failsWith("saml_relay_state_expired", expired);
  });

  it("refuses an answer to another request, and the same assertion twice", async () => {
    const { sso, sp, clock, provider } = await setUp();
    await sso.start({ providerId: provider.id, context });
    await sso.start({ providerId: provider.id, context });
    const [first, second] = sp.requests as [(typeof sp.requests)[0], (typeof sp.requests)[0]];
    const toSecond = sp.answer(samlAssertion(entityId, clock.now()), second.id);
    await failsWith(
      "validation_failed",
      sso.completeSaml({ form: { SAMLResponse: toSecond, RelayState: first.relayState }, context }),
    );

    const assertion = samlAssertion(entityId, clock.now());
    await sso.completeSaml({ form: { SAMLResponse: sp.answer(assertion, null) }, context });
    const replayed = sso.completeSaml({ form: { SAMLResponse: sp.answer(assertion, null) }, context });
    expect((await failsWith("validation_failed", replayed)).message).toBe("SAML Assertion has already been used");
  });

  it("takes a sign-in the IdP started, to its RelayState when allowed, and refuses it when switched off", async () => {
    const allowed = `${siteUrl}/dashboard`;
    const { sso, sp, clock } = await setUp({ policy: { redirect: { allowList: [allowed] } } });
    const toAllowed = await sso.completeSaml({
      form: { SAMLResponse: sp.answer(samlAssertion(entityId, clock.now()), null), RelayState: allowed },
      context,
    });
    expect(toAllowed).toMatchObject({ kind: "session", redirectTo: allowed });
    const elsewhere = await sso.completeSaml({
      form: {
        SAMLResponse: sp.answer(samlAssertion(entityId, clock.now()), null),
        RelayState: "https://evil.example/",
      },
      context,
    });
    expect(elsewhere.redirectTo).toBe(siteUrl);
    const notAUrl = sso.completeSaml({ form: { SAMLResponse: "x", RelayState: "not a url" }, context });
    expect((await failsWith("validation_failed", notAUrl)).message).toBe("SAML RelayState is not a valid UUID or URL");

    const off = await setUp({ policy: { saml: { idpInitiatedEnabled: false } } });
    const answer = off.sp.answer(samlAssertion(entityId, off.clock.now()), null);
    await failsWith("validation_failed", off.sso.completeSaml({ form: { SAMLResponse: answer }, context }));
  });

  it("refuses an IdP nobody added, a disabled provider, and assertions that name no one", async () => {
    const { sso, sp, clock, signIn, provider } = await setUp();
    const stranger = sp.answer(samlAssertion("https://idp.stranger.example", clock.now()), null);
    await failsWith("saml_idp_not_found", sso.completeSaml({ form: { SAMLResponse: stranger }, context }));
    await failsWith("validation_failed", sso.completeSaml({ form: { RelayState: "" }, context }));
    await failsWith(
      "saml_assertion_no_user_id",
      signIn({ nameIdFormat: "urn:oasis:names:tc:SAML:2.0:nameid-format:transient" }),
    );
    await failsWith("saml_assertion_no_email", signIn({ attributes: [] }));
    await failsWith("saml_assertion_no_email", signIn({ email: "not an address" }));
    const answer = sp.answer(samlAssertion(entityId, clock.now()), null);
    await sso.updateProvider({ provider: provider.id, update: { disabled: true } });
    await failsWith("sso_provider_disabled", sso.completeSaml({ form: { SAMLResponse: answer }, context }));
  });

  it("takes the subject-id attribute over the NameID, and an emailAddress NameID lower-cased", async () => {
    const { signIn } = await setUp();
    const bySubjectId = sessionOf(
      await signIn({
        attributes: [
          { name: "urn:oasis:names:tc:SAML:attribute:subject-id", friendlyName: null, values: ["ada@acme"] },
          { name: "mail", friendlyName: null, values: ["ada@acme.example"] },
        ],
      }),
    );
    expect(bySubjectId.user.identities[0]?.providerId).toBe("ada@acme");
    const byEmail = sessionOf(
      await signIn({
        nameId: " Grace@Acme.example ",
        nameIdFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
        attributes: [],
      }),
    );
    expect(byEmail.user.identities[0]?.providerId).toBe("grace@acme.example");
    expect(byEmail.user.email).toBe("grace@acme.example");
  });

  it("refuses new SSO users while signups are off, and banned ones", async () => {
    const closed = await setUp({ policy: { signup: { disabled: true } } });
    await failsWith("signup_disabled", closed.signIn());
    const { signIn, stores, clock } = await setUp();
    const user = sessionOf(await signIn()).user;
    await stores.users.update({ ...user, bannedUntil: new Date(clock.now().getTime() + 3_600_000) });
    await failsWith("user_banned", signIn());
  });

  it("leaves an SSO user's address, phone and password to its IdP", async () => {
    const { signIn, auth } = await setUp();
    const grant = sessionOf(await signIn());
    const principal = { user: grant.user, session: grant.session, claims: {} };
    await failsWith("user_sso_managed", auth.updateUser({ principal, email: "other@acme.example", context }));
    await failsWith("user_sso_managed", auth.updateUser({ principal, password: "a-long-password-1", context }));
    const renamed = await auth.updateUser({ principal, data: { nickname: "ada" }, context });
    expect(renamed.userMetadata["nickname"]).toBe("ada");
  });
});

describe("an IdP's metadata at the ACS", () => {
  async function fromUrl() {
    const testAuth = await setUp();
    const url = "https://idp.acme.example/metadata";
    testAuth.samlMetadata.served.set(url, idpMetadataXml(entityId));
    await testAuth.sso.deleteProvider({ provider: testAuth.provider.id });
    const provider = await testAuth.sso.createProvider({ type: "saml", metadataUrl: url, domains: ["corp.example"] });
    return { ...testAuth, url, provider };
  }

  const signInAt = async (testAuth: Awaited<ReturnType<typeof fromUrl>>, provider: SsoProvider) => {
    const answer = testAuth.sp.answer(samlAssertion(entityId, testAuth.clock.now()), null);
    await testAuth.sso.completeSaml({ form: { SAMLResponse: answer }, context });
    return testAuth.stores.ssoProviders.find(provider.id);
  };

  it("is fetched again from its URL a day after it was stored, when it states no lifetime", async () => {
    const testAuth = await fromUrl();
    const { samlMetadata, clock, provider, url } = testAuth;
    await signInAt(testAuth, provider);
    expect(samlMetadata.fetched).toEqual([url]);
    clock.advance({ milliseconds: 86_400_001 });
    const renewed = idpMetadataXml(entityId, new Date(clock.now().getTime() + 7 * 86_400_000));
    samlMetadata.served.set(url, renewed);
    expect((await signInAt(testAuth, provider))?.saml.metadataXml).toBe(renewed);
    expect(samlMetadata.fetched).toEqual([url, url]);
  });

  it("is kept when the fetch fails or names another IdP, and the operator hears of it", async () => {
    const testAuth = await fromUrl();
    const { samlMetadata, clock, provider, url, events } = testAuth;
    clock.advance({ milliseconds: 86_400_001 });
    samlMetadata.served.delete(url);
    expect((await signInAt(testAuth, provider))?.saml.metadataXml).toBe(provider.saml.metadataXml);
    samlMetadata.served.set(url, idpMetadataXml("https://idp.other.example"));
    expect((await signInAt(testAuth, provider))?.saml.metadataXml).toBe(provider.saml.metadataXml);
    const attention = events.recorded.filter((event) => event.kind === "saml_metadata_attention");
    expect(attention).toHaveLength(2);
    expect(attention[0]).toMatchObject({ problem: "refresh_failed", providerId: provider.id });
  });

  it("given as XML, warns when it expires within 30 days", async () => {
    const { sso, sp, clock, provider, events } = await setUp();
    const soon = idpMetadataXml(entityId, new Date(clock.now().getTime() + 10 * 86_400_000));
    await sso.updateProvider({ provider: provider.id, update: { metadataXml: soon } });
    await sso.completeSaml({ form: { SAMLResponse: sp.answer(samlAssertion(entityId, clock.now()), null) }, context });
    expect(events.recorded).toContainEqual(
      expect.objectContaining({ kind: "saml_metadata_attention", problem: "expiring" }),
    );
  });
});

describe("GET /sso/saml/metadata", () => {
  it("says how long a download is valid, and asks caches to look again sooner while a key rotates in", async () => {
    const { sso, sp, clock } = await setUp();
    expect(await sso.serviceProviderMetadata({ download: false })).toEqual({
      xml: await sp.metadata({ validUntil: null, cacheDurationSeconds: null }),
      maxAgeSeconds: 600,
    });
    const download = await sso.serviceProviderMetadata({ download: true });
    const fiveYears = new Date(clock.now());
    fiveYears.setUTCFullYear(fiveYears.getUTCFullYear() + 5);
    expect(download.xml).toContain(`validUntil="${fiveYears.toISOString()}"`);
    sp.rotating = true;
    const rotating = await sso.serviceProviderMetadata({ download: false });
    expect(rotating).toMatchObject({ maxAgeSeconds: 60 });
    expect(rotating.xml).toContain('cacheDuration="PT3600S"');
  });
});
