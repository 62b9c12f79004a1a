import { describe, expect, it } from "vitest";
import type { SessionGrant } from "../../deps.ts";
import type { TestAuth, TestAuthOptions } from "../../testing/create-test-auth.ts";
import { context, failsWith } from "../../testing/fails-with.ts";
import { FakeAuthenticator } from "../../testing/fake-webauthn.ts";
import { principalOf, signedIn as signedInWithPassword } from "../../testing/signed-in.ts";

/** A user signed in with a password, and an authenticator of theirs. */
async function signedIn(options: TestAuthOptions = {}) {
  return { ...(await signedInWithPassword(options)), authenticator: new FakeAuthenticator() };
}

async function enroll(testAuth: TestAuth, grant: SessionGrant, friendlyName = "Key") {
  const principal = await principalOf(testAuth, grant);
  const enrolled = await testAuth.auth.mfa.enroll({
    principal,
    factorType: "webauthn",
    friendlyName,
    issuer: undefined,
    phone: undefined,
    context,
  });
  return enrolled.factor;
}

/** A challenge of the factor, and the verification of the authenticator's answer to it. */
async function challengeAndAnswer(
  testAuth: TestAuth,
  {
    grant,
    factorId,
    answer,
  }: { grant: SessionGrant; factorId: string; answer: (options: Record<string, unknown>, type: string) => unknown },
) {
  const principal = await principalOf(testAuth, grant);
  const challenge = await testAuth.auth.mfa.challenge({ principal, factorId, channel: undefined, context });
  const offer = challenge.webauthn!;
  const publicKey = offer.credentialOptions["publicKey"] as Record<string, unknown>;
  const webauthn = { type: offer.type, credentialResponse: answer(publicKey, offer.type) };
  return {
    offer,
    publicKey,
    verified: testAuth.auth.mfa.verify({ principal, factorId, challengeId: challenge.id, code: "", webauthn, context }),
  };
}

describe("WebAuthn factors", () => {
  it("register their credential at the first challenge (create) and verify with it later (request)", async () => {
    const testAuth = await signedIn();
    const factor = await enroll(testAuth, testAuth.grant);
    expect(factor).toMatchObject({ type: "webauthn", status: "unverified", webauthn: null });
    const userId = testAuth.user.id;
    const first = await challengeAndAnswer(testAuth, {
      grant: testAuth.grant,
      factorId: factor.id,
      answer: (options) => testAuth.authenticator.create(options),
    });
    expect(first.offer.type).toBe("create");
    expect(first.publicKey["user"]).toMatchObject({ id: userId });
    const aal2 = await first.verified;
    expect(aal2.session.aal).toBe("aal2");
    expect(aal2.session.amr[0]?.method).toBe("mfa/webauthn");
    const [verified] = (await testAuth.stores.users.findById(userId))!.factors;
    expect(verified).toMatchObject({ status: "verified", webauthn: { signCount: 0 } });

    const again = await challengeAndAnswer(testAuth, {
      grant: aal2,
      factorId: factor.id,
      answer: (options) => testAuth.authenticator.get(options, userId),
    });
    expect(again.offer.type).toBe("request");
    expect(again.publicKey["allowCredentials"]).toEqual([{ id: verified!.webauthn!.credentialId, type: "public-key" }]);
    await again.verified;
    const [used] = (await testAuth.stores.users.findById(userId))!.factors;
    expect(used!.webauthn!.signCount).toBe(1);
  });

  it("refuse an answer of the other type, a signature of another key, and a counter that goes backwards", async () => {
    const testAuth = await signedIn();
    const factor = await enroll(testAuth, testAuth.grant);
    const userId = testAuth.user.id;
    const { verified } = await challengeAndAnswer(testAuth, {
      grant: testAuth.grant,
      factorId: factor.id,
      answer: (options) => testAuth.authenticator.create(options),
    });
    const aal2 = await verified;
    const wrongType = await challengeAndAnswer(testAuth, {
      grant: aal2,
      factorId: factor.id,
      answer: (options) => new FakeAuthenticator().create({ ...options, user: { id: userId } }),
    });
    await failsWith("webauthn_verification_failed", wrongType.verified);

    const other = new FakeAuthenticator();
    other.create({ challenge: "x", user: { id: userId } });
    const stranger = await challengeAndAnswer(testAuth, {
      grant: aal2,
      factorId: factor.id,
      answer: (options) => other.get(options, userId),
    });
    await failsWith("webauthn_verification_failed", stranger.verified);

    const forward = (signCount: number) =>
      challengeAndAnswer(testAuth, {
        grant: aal2,
        factorId: factor.id,
        answer: (options) => testAuth.authenticator.get(options, userId, signCount),
      });
    await (await forward(4)).verified;
    await failsWith("webauthn_verification_failed", (await forward(4)).verified);
    expect(testAuth.events.of("webauthn_counter_regressed")).toEqual([
      { kind: "webauthn_counter_regressed", credential: "factor", id: factor.id, userId },
    ]);
  });

  it("ask for the answer in GoTrue's words, and follow MFA_WEB_AUTHN_*_ENABLED", async () => {
    const testAuth = await signedIn();
    const factor = await enroll(testAuth, testAuth.grant);
    const principal = await principalOf(testAuth, testAuth.grant);
    const challenge = await testAuth.auth.mfa.challenge({
      principal,
      factorId: factor.id,
      channel: undefined,
      context,
    });
    const base = { principal, factorId: factor.id, challengeId: challenge.id, code: "", context };
    const missing = await failsWith(
      "validation_failed",
      testAuth.auth.mfa.verify({ ...base, webauthn: { type: "create", credentialResponse: undefined } }),
    );
    expect(missing.message).toBe("credential_response required");
    const wrong = await failsWith(
      "validation_failed",
      testAuth.auth.mfa.verify({ ...base, webauthn: { type: "sign", credentialResponse: {} } }),
    );
    expect(wrong.message).toBe("WebAuthn type must be create or request");

    const off = await signedIn({ policy: { mfa: { webauthn: { enroll: false, verify: false } } } });
    await failsWith("mfa_webauthn_enroll_not_enabled", enroll(off, off.grant));
    const noVerify = await signedIn({ policy: { mfa: { webauthn: { enroll: true, verify: false } } } });
    const unverifiable = await enroll(noVerify, noVerify.grant);
    await failsWith(
      "mfa_webauthn_verify_not_enabled",
      noVerify.auth.mfa.challenge({
        principal: await principalOf(noVerify, noVerify.grant),
        factorId: unverifiable.id,
        channel: undefined,
        context,
      }),
    );
  });
});
