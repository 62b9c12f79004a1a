import type { WebAuthnKey } from "../model/webauthn.ts";
import type { CeremonyOptions, WebAuthnCeremony } from "../ports/webauthn.ts";
import { nodeRandom } from "./node-random.ts";

// A relying party and an authenticator that trust each other without cryptography, for the flows' tests: the
// ceremony itself (signatures, attestation, origins) is the adapter's, tested there with real keys. Here an answer
// "verifies" when it names the challenge and the key it claims to be signed with.

interface FakeRegistration {
  readonly kind: "fake-registration";
  readonly challenge: string;
  readonly credentialId: string;
  readonly userHandle: string;
  readonly userVerified: boolean;
}

interface FakeAssertion {
  readonly kind: "fake-assertion";
  readonly challenge: string;
  readonly credentialId: string;
  readonly userHandle: string;
  readonly signCount: number;
  /** The public key of the key that "signed": a stand-in for a signature. */
  readonly signedWith: string;
  readonly userVerified: boolean;
}

const options = (fields: Record<string, unknown>): CeremonyOptions => {
  const challenge = nodeRandom.token(32);
  return { challenge, options: { challenge, ...fields } };
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

export const fakeWebAuthn: WebAuthnCeremony = {
  async registrationOptions(request) {
    return options({
      user: { id: request.user.id, name: request.user.name, displayName: request.user.displayName },
      excludeCredentials: request.exclude.map((each) => ({ id: each.credentialId, type: "public-key" })),
      authenticatorSelection: { residentKey: request.residentKey, userVerification: request.userVerification },
    });
  },
  async authenticationOptions(request) {
    return options({
      allowCredentials: request.allow.map((each) => ({ id: each.credentialId, type: "public-key" })),
      userVerification: request.userVerification,
    });
  },
  assertionSubject(response) {
    if (!isRecord(response) || response["kind"] !== "fake-assertion") return null;
    const { credentialId, userHandle } = response as unknown as FakeAssertion;
    return { credentialId, userHandle };
  },
  async verifyRegistration(response, expected) {
    if (!isRecord(response) || response["kind"] !== "fake-registration") return null;
    const answer = response as unknown as FakeRegistration;
    if (answer.challenge !== expected.challenge) return null;
    if (expected.userVerification === "required" && !answer.userVerified) return null;
    return keyOf(answer.credentialId);
  },
  authenticatorName: () => "Passkey",
  async verifyAuthentication(response, expected) {
    if (!isRecord(response) || response["kind"] !== "fake-assertion") return null;
    const answer = response as unknown as FakeAssertion;
    if (answer.challenge !== expected.challenge || answer.signedWith !== expected.key.publicKey) return null;
    if (answer.credentialId !== expected.key.credentialId) return null;
    if (expected.userVerification === "required" && !answer.userVerified) return null;
    return { signCount: answer.signCount, backedUp: false };
  },
};

function keyOf(credentialId: string): WebAuthnKey {
  return {
    credentialId,
    publicKey: `public-key-of-${credentialId}`,
    signCount: 0,
    transports: ["internal"],
    aaguid: null,
    attestationType: "none",
    backupEligible: false,
    backedUp: false,
  };
}

/** An authenticator holding one credential per user it registered, answering the fake relying party. */
export class FakeAuthenticator {
  readonly #credentials = new Map<string, { credentialId: string; signCount: number }>();
  userVerified = true;

  /** Answers creation options: a new credential for the user they name. */
  create(creation: Readonly<Record<string, unknown>>): FakeRegistration {
    const user = creation["user"] as { id: string };
    const credentialId = nodeRandom.token(16);
    this.#credentials.set(user.id, { credentialId, signCount: 0 });
    return {
      kind: "fake-registration",
      challenge: String(creation["challenge"]),
      credentialId,
      userHandle: user.id,
      userVerified: this.userVerified,
    };
  }

  /** Answers request options with the credential it holds for `userId`, its counter moved on (or set to `signCount`). */
  get(request: Readonly<Record<string, unknown>>, userId: string, signCount?: number): FakeAssertion {
    const held = this.#credentials.get(userId);
    if (!held) throw new Error(`no credential for ${userId}`);
    held.signCount = signCount ?? held.signCount + 1;
    return {
      kind: "fake-assertion",
      challenge: String(request["challenge"]),
      credentialId: held.credentialId,
      userHandle: userId,
      signCount: held.signCount,
      signedWith: keyOf(held.credentialId).publicKey,
      userVerified: this.userVerified,
    };
  }
}
