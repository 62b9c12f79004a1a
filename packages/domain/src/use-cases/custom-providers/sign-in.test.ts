import { describe, expect, it } from "vitest";
import { createTestAuth } from "../../testing/create-test-auth.ts";
import { context, failsWith } from "../../testing/fails-with.ts";
import { FakeCustomProviderRuntime } from "../../testing/fake-custom-provider-runtime.ts";
import { fakeProfile, providerEmail } from "../../testing/fake-oauth-provider.ts";

const admin = { role: "service_role", userId: null, claims: {} };

/** A domain with one custom OAuth 2.0 provider, `custom:acme`, added by an admin. */
async function withAcme(options: { enabled?: boolean } = {}) {
  const runtime = new FakeCustomProviderRuntime();
  const testAuth = createTestAuth({
    policy: { customProviders: { enabled: options.enabled ?? true } },
    ports: { customProviders: runtime },
  });
  const provider = {
    providerType: "oauth2",
    identifier: "custom:acme",
    name: "Acme",
    clientId: "acme-client",
    clientSecret: "acme-secret",
    authorizationUrl: "https://acme.example/oauth/authorize",
    tokenUrl: "https://acme.example/oauth/token",
    userinfoUrl: "https://acme.example/api/me",
  };
  if (options.enabled ?? true) await testAuth.auth.customProviders.create({ admin, context, provider });
  const signIn = async (name = "custom:acme") => {
    await testAuth.auth.oauth.start({ provider: name, params: [] });
    const fake = runtime.providers.get("custom:acme")!.provider;
    return testAuth.auth.oauth.complete({ params: { state: fake.lastState, code: "c" }, context });
  };
  return { ...testAuth, runtime, signIn };
}

describe("signing in with a custom provider", () => {
  it("is the admin's provider, its secret opened, its identities stored under the identifier", async () => {
    const { runtime, signIn } = await withAcme();
    const result = await signIn("CUSTOM:Acme");
    if (result.kind !== "session") throw new Error(`expected a session, got ${result.kind}`);
    expect(runtime.providers.get("custom:acme")?.clientSecret).toBe("acme-secret");
    expect(result.grant.user.identities.map((identity) => identity.provider)).toEqual(["custom:acme"]);
  });

  it("follows the built-in providers' linking rules: an unverified address links to no one", async () => {
    const { runtime, auth, stores } = await withAcme();
    await auth.signUp({ email: "ada@example.com", password: "a-long-password-1", context });
    await auth.oauth.start({ provider: "custom:acme", params: [] });
    const fake = runtime.providers.get("custom:acme")!.provider;
    fake.profile = fakeProfile("7", [providerEmail("ada@example.com", false)]);
    const result = await auth.oauth.complete({ params: { state: fake.lastState, code: "c" }, context });
    const owner = await stores.users.findByEmail("ada@example.com");
    expect(owner?.identities.some((identity) => identity.provider === "custom:acme")).toBe(false);
    expect(result.kind === "session" ? result.grant.user.id : null).not.toBe(owner?.id);
  });

  it("is refused with GoTrue's messages when unknown, disabled, or switched off", async () => {
    const { auth } = await withAcme();
    const start = (provider: string) => auth.oauth.start({ provider, params: [] });
    expect((await failsWith("validation_failed", start("custom:nobody"))).message).toBe(
      "Unsupported provider: custom provider custom:nobody not found",
    );
    await auth.customProviders.update({ admin, context, identifier: "custom:acme", update: { enabled: false } });
    expect((await failsWith("validation_failed", start("custom:acme"))).message).toBe(
      "Unsupported provider: custom provider custom:acme is disabled",
    );
    const off = await withAcme({ enabled: false });
    expect(
      (await failsWith("validation_failed", off.auth.oauth.start({ provider: "custom:acme", params: [] }))).message,
    ).toBe("Unsupported provider: custom OAuth providers are disabled");
  });

  it("takes id_tokens of an OIDC provider only, refusing as GoTrue does", async () => {
    const { auth } = await withAcme();
    const withToken = (provider: string) => auth.oauth.signInWithIdToken({ provider, idToken: "x.y.z", context });
    expect((await failsWith("validation_failed", withToken("custom:nobody"))).message).toBe(
      'Custom provider "custom:nobody" not found',
    );
    expect((await failsWith("validation_failed", withToken("custom:acme"))).message).toBe(
      'Provider "custom:acme" is not an OIDC provider',
    );
    await auth.customProviders.update({ admin, context, identifier: "custom:acme", update: { enabled: false } });
    expect((await failsWith("provider_disabled", withToken("custom:acme"))).message).toBe(
      'Custom provider "custom:acme" is disabled',
    );
    const off = await withAcme({ enabled: false });
    const refused = off.auth.oauth.signInWithIdToken({ provider: "custom:acme", idToken: "x.y.z", context });
    expect((await failsWith("validation_failed", refused)).message).toBe("Custom OAuth providers are disabled");
  });
});
