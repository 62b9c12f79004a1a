import { randomUUID } from "node:crypto";
import type { CredentialDescriptor, UserVerification, WebAuthnKey } from "@latchkey/domain";
import { describe, expect, it } from "vitest";
import {
  type CreationOptionsJSON,
  type RequestOptionsJSON,
  SoftwareAuthenticator,
  type SoftwareAuthenticatorOptions,
} from "../../../test/support/software-authenticator.ts";
import { createWebAuthnCeremony } from "../src/index.ts";

const rp = { id: "app.example.com", name: "Example", origins: ["https://app.example.com", "https://example.com"] };
const ceremony = createWebAuthnCeremony(rp);
const origin = "https://app.example.com";

const descriptorOf = (key: WebAuthnKey): CredentialDescriptor => ({
  credentialId: key.credentialId,
  transports: key.transports,
});

const b64url = (text: string) => Buffer.from(text, "utf8").toString("base64url");

function authenticator(options: Partial<SoftwareAuthenticatorOptions> = {}) {
  return new SoftwareAuthenticator({ rpId: rp.id, origin, ...options });
}

async function creationOptions(userId: string, exclude: readonly CredentialDescriptor[] = [], uv?: UserVerification) {
  const { options, challenge } = await ceremony.registrationOptions({
    user: { id: userId, name: "ada@example.com", displayName: "Ada" },
    exclude,
    residentKey: "required",
    userVerification: uv ?? "preferred",
  });
  return { options: options as unknown as CreationOptionsJSON, challenge };
}

async function requestOptions(allow: readonly CredentialDescriptor[] = [], uv: UserVerification = "preferred") {
  const { options, challenge } = await ceremony.authenticationOptions({ allow, userVerification: uv });
  return { options: options as unknown as RequestOptionsJSON, challenge };
}

/** A credential registered through the ceremony: the authenticator holding it, and the key the server keeps. */
async function registered(options: Partial<SoftwareAuthenticatorOptions> = {}) {
  const device = authenticator(options);
  const userId = randomUUID();
  const { options: creation, challenge } = await creationOptions(userId);
  const key = await ceremony.verifyRegistration(device.create(creation), { challenge, userVerification: "preferred" });
  if (key === null) throw new Error("registration did not verify");
  return { device, userId, key };
}

describe("registration options", () => {
  it("name the relying party, the user by the bytes of its id, and the algorithms a key may use", async () => {
    const userId = randomUUID();
    const exclude = [{ credentialId: "AQID", transports: ["usb", "nfc"] }];
    const { options, challenge } = await ceremony.registrationOptions({
      user: { id: userId, name: "ada@example.com", displayName: "Ada" },
      exclude,
      residentKey: "required",
      userVerification: "required",
    });
    expect(challenge).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    expect(options).toMatchObject({
      challenge,
      rp: { id: "app.example.com", name: "Example" },
      user: { id: b64url(userId), name: "ada@example.com", displayName: "Ada" },
      attestation: "none",
      authenticatorSelection: { residentKey: "required", requireResidentKey: true, userVerification: "required" },
      excludeCredentials: [{ id: "AQID", type: "public-key", transports: ["usb", "nfc"] }],
    });
    const algorithms = (options["pubKeyCredParams"] as { alg: number; type: string }[]).map((param) => param.alg);
    expect(algorithms).toEqual(expect.arrayContaining([-7, -8, -257]));
    expect(JSON.parse(JSON.stringify(options))).toEqual(options);
  });

  it("carry a new challenge each time", async () => {
    const first = await creationOptions(randomUUID());
    const second = await creationOptions(randomUUID());
    expect(first.challenge).not.toBe(second.challenge);
  });
});

describe("authentication options", () => {
  it("allow no credential in particular for a passkey sign-in", async () => {
    const { options, challenge } = await ceremony.authenticationOptions({ allow: [], userVerification: "required" });
    expect(options).toMatchObject({ challenge, rpId: "app.example.com", userVerification: "required" });
    expect(options["allowCredentials"] ?? []).toEqual([]);
  });

  it("allow the credentials named", async () => {
    const allow = [{ credentialId: "AQID", transports: ["internal"] }];
    const { options } = await ceremony.authenticationOptions({ allow, userVerification: "discouraged" });
    expect(options["allowCredentials"]).toEqual([{ id: "AQID", type: "public-key", transports: ["internal"] }]);
    expect(options["userVerification"]).toBe("discouraged");
  });
});

describe("a round trip with a software authenticator", () => {
  it.each([
    ["ES256", "none"],
    ["ES256", "packed"],
    ["EdDSA", "none"],
    ["EdDSA", "packed"],
  ] as const)("%s, attestation %s: registers, then signs in by the key", async (algorithm, attestation) => {
    const { device, userId, key } = await registered({ algorithm, attestation });
    expect(key).toEqual({
      credentialId: device.credential.id,
      publicKey: Buffer.from(device.credential.publicKey).toString("base64url"),
      signCount: 0,
      transports: ["internal"],
      aaguid: null,
      attestationType: attestation,
      backupEligible: false,
      backedUp: false,
    });

    const { options, challenge } = await requestOptions([descriptorOf(key)], "required");
    const assertion = device.get(options);
    expect(ceremony.assertionSubject(assertion)).toEqual({ credentialId: key.credentialId, userHandle: userId });
    expect(await ceremony.verifyAuthentication(assertion, { challenge, userVerification: "required", key })).toEqual({
      signCount: 1,
      backedUp: false,
    });
  });

  it("signs in with a discoverable credential: no credential allowed, the user named by its handle", async () => {
    const { device, userId, key } = await registered();
    const { options, challenge } = await requestOptions();
    const assertion = device.get(options);
    expect(ceremony.assertionSubject(assertion)).toEqual({ credentialId: key.credentialId, userHandle: userId });
    expect(await ceremony.verifyAuthentication(assertion, { challenge, userVerification: "preferred", key })).toEqual({
      signCount: 1,
      backedUp: false,
    });
  });

  it("accepts any of the relying party's origins", async () => {
    const { device, key } = await registered({ origin: "https://example.com" });
    const { options, challenge } = await requestOptions([descriptorOf(key)]);
    const expected = { challenge, userVerification: "preferred" as const, key };
    expect(await ceremony.verifyAuthentication(device.get(options), expected)).not.toBeNull();
  });

  it("keeps the authenticator model's AAGUID, and names the known ones", async () => {
    const { key } = await registered({ aaguid: "EA9B8D66-4D01-1D21-3CE4-B6B48CB575D4" });
    expect(key.aaguid).toBe("ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4");
    expect(ceremony.authenticatorName(key.aaguid)).toBe("Google Password Manager");
    expect(ceremony.authenticatorName("01234567-89ab-cdef-0123-456789abcdef")).toBe("Passkey");
    expect(ceremony.authenticatorName(null)).toBe("Passkey");
  });

  it("reports a counter that went backwards rather than refusing it: the flows judge counters", async () => {
    const { device, key } = await registered();
    for (const expected of [1, 2, 3]) {
      const { options, challenge } = await requestOptions([descriptorOf(key)]);
      const verified = await ceremony.verifyAuthentication(device.get(options), {
        challenge,
        userVerification: "preferred",
        key: { ...key, signCount: expected - 1 },
      });
      expect(verified?.signCount).toBe(expected);
    }
    device.setCounter(0);
    const { options, challenge } = await requestOptions([descriptorOf(key)]);
    const stored = { ...key, signCount: 3 };
    expect(
      await ceremony.verifyAuthentication(device.get(options), {
        challenge,
        userVerification: "preferred",
        key: stored,
      }),
    ).toEqual({ signCount: 1, backedUp: false });
  });

  it("lets the authenticator refuse to register again a credential it holds", async () => {
    const { device, userId, key } = await registered();
    const { options } = await creationOptions(userId, [descriptorOf(key)]);
    expect(() => device.create(options)).toThrow(/already registered/);
  });
});

describe("a registration answer that does not verify", () => {
  /** A fresh authenticator's answer to fresh options, spoiled as `tampering` says, and its verification. */
  async function verify(
    tampering: Parameters<SoftwareAuthenticator["create"]>[1],
    {
      userVerification = "preferred" as UserVerification,
      userVerified = true,
      challenge = undefined as string | undefined,
    } = {},
  ) {
    const { options, challenge: issued } = await creationOptions(randomUUID(), [], userVerification);
    const answer = authenticator({ userVerified }).create(options, tampering);
    return ceremony.verifyRegistration(answer, { challenge: challenge ?? issued, userVerification });
  }

  it("is refused for another challenge", async () => {
    expect(await verify({ challenge: b64url("another challenge") })).toBeNull();
    expect(await verify({}, { challenge: b64url("the challenge expected") })).toBeNull();
  });

  it("is refused from another origin", async () => {
    expect(await verify({ origin: "https://evil.example" })).toBeNull();
  });

  it("is refused for another relying party's id hash", async () => {
    expect(await verify({ rpId: "evil.example" })).toBeNull();
  });

  it("is refused as an assertion's client data", async () => {
    expect(await verify({ type: "webauthn.get" })).toBeNull();
  });

  it("is refused without user verification when it is required, and accepted when it is only preferred", async () => {
    expect(await verify({}, { userVerification: "required", userVerified: false })).toBeNull();
    expect(await verify({}, { userVerification: "preferred", userVerified: false })).not.toBeNull();
  });

  it("is refused with a packed statement whose signature is not the key's", async () => {
    const { options, challenge } = await creationOptions(randomUUID());
    const answer = authenticator({ attestation: "packed" }).create(options, { badSignature: true });
    expect(await ceremony.verifyRegistration(answer, { challenge, userVerification: "preferred" })).toBeNull();
  });

  it("is refused when it is not a public-key credential, or not a registration answer at all", async () => {
    const { options, challenge } = await creationOptions(randomUUID());
    const answer = authenticator().create(options);
    const expected = { challenge, userVerification: "preferred" as const };
    for (const junk of [
      null,
      "answer",
      42,
      [],
      {},
      { ...answer, type: "password" },
      { ...answer, rawId: "AAAA" },
      { ...answer, id: "not base64url!" },
      { ...answer, response: null },
      { ...answer, response: { ...answer.response, attestationObject: 7 } },
      { ...answer, response: { ...answer.response, attestationObject: "AAAA" } },
      { ...answer, response: { ...answer.response, clientDataJSON: b64url("{") } },
      { ...answer, response: { ...answer.response, transports: "internal" } },
    ]) {
      expect(await ceremony.verifyRegistration(junk, expected)).toBeNull();
    }
    expect(await ceremony.verifyRegistration(answer, expected)).not.toBeNull();
  });
});

describe("an assertion that does not verify", () => {
  async function setUp(options: Partial<SoftwareAuthenticatorOptions> = {}) {
    const { device, key } = await registered(options);
    const { options: request, challenge } = await requestOptions([descriptorOf(key)]);
    const verify = (
      answer: unknown,
      overrides: { challenge?: string; uv?: UserVerification; key?: WebAuthnKey } = {},
    ) =>
      ceremony.verifyAuthentication(answer, {
        challenge: overrides.challenge ?? challenge,
        userVerification: overrides.uv ?? "preferred",
        key: overrides.key ?? key,
      });
    return { device, key, request, challenge, verify };
  }

  it("is refused for another challenge", async () => {
    const { device, request, verify } = await setUp();
    expect(await verify(device.get(request, { challenge: b64url("another") }))).toBeNull();
    expect(await verify(device.get(request), { challenge: b64url("the one expected") })).toBeNull();
  });

  it("is refused from another origin, or for another relying party's id hash", async () => {
    const { device, request, verify } = await setUp();
    expect(await verify(device.get(request, { origin: "https://evil.example" }))).toBeNull();
    expect(await verify(device.get(request, { rpId: "evil.example" }))).toBeNull();
    expect(await verify(device.get(request, { type: "webauthn.create" }))).toBeNull();
  });

  it("is refused with a tampered signature or authenticator data", async () => {
    const { device, request, verify } = await setUp();
    expect(await verify(device.get(request, { badSignature: true }))).toBeNull();
    const answer = device.get(request);
    const signature = Buffer.from(answer.response.signature, "base64url");
    signature[signature.length - 1]! ^= 0x01;
    const data = Buffer.from(answer.response.authenticatorData, "base64url");
    data[data.length - 1]! ^= 0x01;
    const tampered = (field: string, bytes: Buffer) => ({
      ...answer,
      response: { ...answer.response, [field]: bytes.toString("base64url") },
    });
    expect(await verify(tampered("signature", signature))).toBeNull();
    expect(await verify(tampered("authenticatorData", data))).toBeNull();
    expect(await verify(answer)).not.toBeNull();
  });

  it.each(["ES256", "EdDSA"] as const)("is refused when the %s signature is not the key's", async (algorithm) => {
    const { device, key, request, verify } = await setUp({ algorithm });
    const { key: other } = await registered({ algorithm });
    expect(await verify(device.get(request), { key: { ...other, credentialId: key.credentialId } })).toBeNull();
    // Another credential's key, under its own id: the answer names another credential.
    expect(await verify(device.get(request), { key: other })).toBeNull();
  });

  it("is refused without user verification when it is required", async () => {
    const { device, request, verify } = await setUp();
    expect(await verify(device.get(request, { userVerified: false }), { uv: "required" })).toBeNull();
    expect(await verify(device.get(request, { userVerified: false }), { uv: "preferred" })).not.toBeNull();
  });

  it("is refused when it is not an assertion", async () => {
    const { device, request, verify } = await setUp();
    const answer = device.get(request);
    for (const junk of [
      null,
      {},
      { ...answer, type: "otp" },
      { ...answer, rawId: "AAAA" },
      { ...answer, response: { ...answer.response, signature: null } },
      { ...answer, response: { ...answer.response, authenticatorData: "AAAA" } },
      { ...answer, response: { ...answer.response, clientDataJSON: "%%%" } },
    ]) {
      expect(await verify(junk)).toBeNull();
    }
  });
});

describe("an assertion's subject", () => {
  const assertion = (response: Record<string, unknown>, rest: Record<string, unknown> = {}) => ({
    id: "AQID",
    rawId: "AQID",
    type: "public-key",
    response: { clientDataJSON: "e30", authenticatorData: "AAAA", signature: "AAAA", ...response },
    clientExtensionResults: {},
    ...rest,
  });

  it("names the credential, and the user by the handle's text", () => {
    const userId = randomUUID();
    expect(ceremony.assertionSubject(assertion({ userHandle: b64url(userId) }))).toEqual({
      credentialId: "AQID",
      userHandle: userId,
    });
  });

  it("has no user when the handle is absent or empty", () => {
    for (const userHandle of [undefined, null, ""]) {
      expect(ceremony.assertionSubject(assertion({ userHandle }))).toEqual({ credentialId: "AQID", userHandle: null });
    }
  });

  it("is null for anything that is not an assertion", () => {
    for (const junk of [
      undefined,
      null,
      "AQID",
      7,
      [],
      {},
      assertion({}, { id: undefined }),
      assertion({}, { id: 5, rawId: 5 }),
      assertion({}, { id: "a+b/", rawId: "a+b/" }),
      assertion({}, { rawId: "AQIE" }),
      assertion({}, { type: "password" }),
      assertion({}, { response: "nothing" }),
      assertion({ signature: undefined }),
      assertion({ userHandle: 42 }),
      assertion({ userHandle: "not base64url!" }),
      // Bytes that are no UTF-8: no handle of ours.
      assertion({ userHandle: Buffer.from([0xff, 0xfe]).toString("base64url") }),
    ]) {
      expect(ceremony.assertionSubject(junk)).toBeNull();
    }
  });
});
