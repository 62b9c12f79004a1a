import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { type CborValue, encodeCbor } from "../../../test/support/cbor.ts";
import {
  type CreationOptionsJSON,
  SoftwareAuthenticator,
  type SoftwareAuthenticatorOptions,
} from "../../../test/support/software-authenticator.ts";

// The software authenticator the end-to-end tests register passkeys with. That what it answers verifies is the
// ceremony tests' to show (webauthn-ceremony.test.ts); here, its encoding and what it refuses.

const hex = (value: CborValue) => Buffer.from(encodeCbor(value)).toString("hex");

describe("the CBOR encoder", () => {
  it("writes RFC 8949's examples (appendix A) in their shortest form", () => {
    const examples: [CborValue, string][] = [
      [0, "00"],
      [23, "17"],
      [24, "1818"],
      [100, "1864"],
      [1000, "1903e8"],
      [1000000, "1a000f4240"],
      [2 ** 32, "1b0000000100000000"],
      [-1, "20"],
      [-10, "29"],
      [-100, "3863"],
      [-1000, "3903e7"],
      ["", "60"],
      ["a", "6161"],
      ["IETF", "6449455446"],
      ["ü", "62c3bc"],
      [new Uint8Array(), "40"],
      [Uint8Array.of(1, 2, 3, 4), "4401020304"],
      [[], "80"],
      [[1, [2, 3], [4, 5]], "8301820203820405"],
      [new Map(), "a0"],
      [
        new Map<number, CborValue>([
          [1, 2],
          [3, 4],
        ]),
        "a201020304",
      ],
      [
        new Map<string, CborValue>([
          ["a", 1],
          ["b", [2, 3]],
        ]),
        "a26161016162820203",
      ],
    ];
    for (const [value, encoded] of examples) expect(hex(value)).toBe(encoded);
    expect(hex(new Uint8Array(300))).toMatch(/^59012c/);
  });

  it("orders map keys as CTAP2 does: unsigned before negative before text, shorter first", () => {
    const map = new Map<string | number, CborValue>([
      ["fmt", 0],
      [-2, 0],
      [-1, 0],
      [3, 0],
      [1, 0],
      [24, 0],
      ["a", 0],
    ]);
    expect(hex(map)).toBe(`a7${["01", "03", "1818", "20", "21", "6161", "63666d74"].map((k) => `${k}00`).join("")}`);
  });

  it("refuses what WebAuthn has no use for", () => {
    expect(() => encodeCbor(1.5)).toThrow(RangeError);
    expect(() => encodeCbor(Number.MAX_SAFE_INTEGER + 1)).toThrow(RangeError);
  });
});

const rpId = "app.example.com";
const userHandle = Buffer.from("4b2b9a57-3c4e-4bcb-9d3c-3b5b3e1e3f10").toString("base64url");

const creation = (overrides: Partial<CreationOptionsJSON> = {}): CreationOptionsJSON => ({
  challenge: Buffer.from("a challenge").toString("base64url"),
  rp: { id: rpId, name: "Example" },
  user: { id: userHandle, name: "ada@example.com", displayName: "Ada" },
  pubKeyCredParams: [
    { alg: -8, type: "public-key" },
    { alg: -7, type: "public-key" },
  ],
  ...overrides,
});

const device = (options: Partial<SoftwareAuthenticatorOptions> = {}) =>
  new SoftwareAuthenticator({ rpId, origin: `https://${rpId}`, ...options });

const bytes = (base64url: string) => Buffer.from(base64url, "base64url");

describe("the software authenticator", () => {
  it("answers a registration as the browser would: client data, and authenticator data with the new key", () => {
    const authenticator = device({ userVerified: false });
    const answer = authenticator.create(creation());
    expect(answer).toMatchObject({
      id: authenticator.credential.id,
      rawId: authenticator.credential.id,
      type: "public-key",
      response: { transports: ["internal"] },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    });
    expect(JSON.parse(bytes(answer.response.clientDataJSON).toString())).toEqual({
      type: "webauthn.create",
      challenge: creation().challenge,
      origin: `https://${rpId}`,
      crossOrigin: false,
    });
    const object = bytes(answer.response.attestationObject);
    // {"fmt": "none", "attStmt": {}, "authData": bytes(…)}: the authData follows its 2-byte-long head.
    expect(object.subarray(0, 20).toString("hex")).toMatch(/^a363666d74646e6f6e656761747453746d74a0/);
    const authData = object.subarray(object.indexOf(Buffer.from("authData")) + 8 + 2);
    expect(authData.subarray(0, 32)).toEqual(createHash("sha256").update(rpId).digest());
    expect(authData[32]).toBe(0x41); // UP, AT: no UV, as told; never BE or BS
    expect(authData.readUInt32BE(33)).toBe(0);
    expect(authData.subarray(55, 55 + 16).toString("base64url")).toBe(authenticator.credential.id);
    expect(Buffer.from(authData.subarray(71))).toEqual(Buffer.from(authenticator.credential.publicKey));
  });

  it("writes COSE keys: EC2 P-256 for ES256, OKP Ed25519 for EdDSA", () => {
    const es256 = device({ algorithm: "ES256" });
    es256.create(creation());
    expect(Buffer.from(es256.credential.publicKey).toString("hex")).toMatch(/^a5010203262001215820[0-9a-f]{64}225820/);
    const eddsa = device({ algorithm: "EdDSA" });
    eddsa.create(creation());
    expect(Buffer.from(eddsa.credential.publicKey).toString("hex")).toMatch(/^a4010103272006215820[0-9a-f]{64}$/);
  });

  it("refuses to register a credential again, and only its own", () => {
    const authenticator = device();
    authenticator.create(creation());
    const own = { id: authenticator.credential.id, type: "public-key" };
    expect(() => authenticator.create(creation({ excludeCredentials: [own] }))).toThrow(/already registered/);
    expect(() =>
      authenticator.create(creation({ excludeCredentials: [{ id: "AQID", type: "public-key" }] })),
    ).not.toThrow();
    expect(authenticator.credentials).toHaveLength(2);
  });

  it("refuses another relying party's options, and algorithms it has no key for", () => {
    expect(() => device().create(creation({ rp: { id: "evil.example", name: "Evil" } }))).toThrow(/rp id/);
    expect(() => device({ algorithm: "ES256" }).create(creation({ pubKeyCredParams: [{ alg: -8 }] }))).toThrow(
      /does not accept ES256/,
    );
  });

  it("asserts with the user handle, and a counter that counts up until it is set back", () => {
    const authenticator = device();
    authenticator.create(creation());
    const request = { challenge: "Y2hhbGxlbmdl", rpId };
    const counters: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const answer = authenticator.get(request);
      expect(answer.response.userHandle).toBe(userHandle);
      counters.push(bytes(answer.response.authenticatorData).readUInt32BE(33));
    }
    authenticator.setCounter(0);
    counters.push(bytes(authenticator.get(request).response.authenticatorData).readUInt32BE(33));
    expect(counters).toEqual([1, 2, 3, 1]);
    expect(bytes(authenticator.get(request).response.authenticatorData)[32]).toBe(0x05); // UP, UV
  });

  it("answers only for a credential it holds and is allowed", () => {
    const authenticator = device();
    expect(() => authenticator.get({ challenge: "AAAA" })).toThrow(/no credential/);
    authenticator.create(creation());
    const first = authenticator.credential.id;
    authenticator.create(creation());
    expect(authenticator.get({ challenge: "AAAA", allowCredentials: [{ id: first }] }).id).toBe(first);
    expect(authenticator.get({ challenge: "AAAA" }).id).toBe(authenticator.credential.id);
    expect(() => authenticator.get({ challenge: "AAAA", allowCredentials: [{ id: "AQID" }] })).toThrow(/no credential/);
  });
});
