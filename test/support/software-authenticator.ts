import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";
import { type CborKey, type CborValue, encodeCbor } from "./cbor.ts";

// A WebAuthn authenticator and the browser in front of it, in software, for tests: it answers the options a relying
// party sends (as JSON, binary values base64url) with what navigator.credentials.create() and .get() would give the
// page, as JSON (the form @simplewebauthn/browser and supabase-js post). Its credentials are discoverable, its
// authenticator data says the user was present (and verified, when told), and the credentials are never backed up.

export type SoftwareAlgorithm = "ES256" | "EdDSA";

export interface SoftwareAuthenticatorOptions {
  /** The relying party it believes it is talking to: options naming another are refused, as a browser would. */
  readonly rpId: string;
  /** The page's origin, written into clientDataJSON. */
  readonly origin: string;
  readonly algorithm?: SoftwareAlgorithm;
  /** `packed` is self-attestation: the statement signed with the new credential's own key. */
  readonly attestation?: "none" | "packed";
  /** Whether it verifies its user (the UV flag); true unless told. */
  readonly userVerified?: boolean;
  /** Its model's AAGUID, uuid form; all zeros unless told. */
  readonly aaguid?: string;
}

/** Deliberate faults, for tests of refusals: what the answer claims instead of the truth. */
export interface Tampering {
  readonly origin?: string;
  readonly challenge?: string;
  /** The rpId whose hash the authenticator data carries. */
  readonly rpId?: string;
  /** clientDataJSON's type (`webauthn.create`, `webauthn.get`). */
  readonly type?: string;
  readonly userVerified?: boolean;
  /** Sign other bytes than the ones due: the assertion's signature, or the packed statement's, does not verify. */
  readonly badSignature?: boolean;
}

export interface CredentialDescriptorJSON {
  readonly id: string;
  readonly type?: string;
  readonly transports?: readonly string[];
}

/** PublicKeyCredentialCreationOptionsJSON, the part of it read here. */
export interface CreationOptionsJSON {
  readonly challenge: string;
  readonly rp: { readonly id?: string; readonly name?: string };
  readonly user: { readonly id: string; readonly name?: string; readonly displayName?: string };
  readonly pubKeyCredParams: readonly { readonly alg: number; readonly type?: string }[];
  readonly excludeCredentials?: readonly CredentialDescriptorJSON[];
}

/** PublicKeyCredentialRequestOptionsJSON, the part of it read here. */
export interface RequestOptionsJSON {
  readonly challenge: string;
  readonly rpId?: string;
  readonly allowCredentials?: readonly CredentialDescriptorJSON[];
}

export interface RegistrationResponseJSON {
  readonly id: string;
  readonly rawId: string;
  readonly type: "public-key";
  readonly response: {
    readonly clientDataJSON: string;
    readonly attestationObject: string;
    readonly transports: string[];
  };
  readonly clientExtensionResults: Record<string, never>;
  readonly authenticatorAttachment: "platform";
}

export interface AuthenticationResponseJSON {
  readonly id: string;
  readonly rawId: string;
  readonly type: "public-key";
  readonly response: {
    readonly clientDataJSON: string;
    readonly authenticatorData: string;
    readonly signature: string;
    readonly userHandle: string;
  };
  readonly clientExtensionResults: Record<string, never>;
  readonly authenticatorAttachment: "platform";
}

/** A credential it made: what a real authenticator keeps (its private key included). */
export interface SoftwareCredential {
  /** base64url */
  readonly id: string;
  readonly rpId: string;
  /** The user handle the options gave, base64url. */
  readonly userHandle: string;
  readonly algorithm: SoftwareAlgorithm;
  readonly privateKey: KeyObject;
  /** The COSE_Key, as its registration carried it. */
  readonly publicKey: Uint8Array;
  /** The signature counter: the last value it reported. */
  counter: number;
}

const COSE_ALGORITHM: Record<SoftwareAlgorithm, number> = { ES256: -7, EdDSA: -8 };

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
const sha256 = (data: Uint8Array | string) => new Uint8Array(createHash("sha256").update(data).digest());
const concat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));

/** A new key pair, and its public half as a COSE_Key (RFC 9053): EC2 on P-256, or OKP on Ed25519. */
function keyPair(algorithm: SoftwareAlgorithm): { privateKey: KeyObject; publicKey: Uint8Array } {
  const coordinate = (value: string | undefined) => new Uint8Array(Buffer.from(value ?? "", "base64url"));
  if (algorithm === "ES256") {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const jwk = publicKey.export({ format: "jwk" });
    const cose = new Map<CborKey, CborValue>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, coordinate(jwk.x)],
      [-3, coordinate(jwk.y)],
    ]);
    return { privateKey, publicKey: encodeCbor(cose) };
  }
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const jwk = publicKey.export({ format: "jwk" });
  const cose = new Map<CborKey, CborValue>([
    [1, 1], // kty: OKP
    [3, -8], // alg: EdDSA
    [-1, 6], // crv: Ed25519
    [-2, coordinate(jwk.x)],
  ]);
  return { privateKey, publicKey: encodeCbor(cose) };
}

/** ES256 signatures are DER (as WebAuthn has them), over SHA-256; Ed25519 signs the message itself. */
function signWith(credential: SoftwareCredential, data: Uint8Array, tampering: Tampering): Uint8Array {
  const hash = credential.algorithm === "ES256" ? "sha256" : null;
  const signed = tampering.badSignature ? concat(data, Uint8Array.of(0)) : data;
  return new Uint8Array(sign(hash, signed, credential.privateKey));
}

function counterBytes(counter: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, counter);
  return bytes;
}

function aaguidBytes(aaguid: string): Uint8Array {
  const hex = aaguid.replaceAll("-", "");
  if (!/^[0-9a-f]{32}$/i.test(hex)) throw new Error(`software authenticator: bad AAGUID ${aaguid}`);
  return new Uint8Array(Buffer.from(hex, "hex"));
}

export class SoftwareAuthenticator {
  readonly #options: Required<SoftwareAuthenticatorOptions>;
  readonly #credentials: SoftwareCredential[] = [];

  constructor(options: SoftwareAuthenticatorOptions) {
    this.#options = {
      algorithm: "ES256",
      attestation: "none",
      userVerified: true,
      aaguid: "00000000-0000-0000-0000-000000000000",
      ...options,
    };
  }

  /** The credentials it holds, oldest first. */
  get credentials(): readonly SoftwareCredential[] {
    return this.#credentials;
  }

  /** The credential it made last; throws when it has none. */
  get credential(): SoftwareCredential {
    const last = this.#credentials.at(-1);
    if (last === undefined) throw new Error("software authenticator: no credential yet");
    return last;
  }

  /**
   * Sets where a credential's counter stands (the last one made, unless named): the next assertion reports
   * `counter + 1`. A value below the one last reported makes the counter go backwards, as a cloned key's would.
   */
  setCounter(counter: number, credentialId = this.credential.id): void {
    const credential = this.#credentials.find((c) => c.id === credentialId);
    if (credential === undefined) throw new Error(`software authenticator: no credential ${credentialId}`);
    credential.counter = counter;
  }

  /** navigator.credentials.create(): a new credential for the options' user, and its registration answer. */
  create(options: CreationOptionsJSON, tampering: Tampering = {}): RegistrationResponseJSON {
    const rpId = this.#rpIdOf(options.rp.id);
    this.#refuseExcluded(rpId, options.excludeCredentials ?? []);
    const algorithm = this.#options.algorithm;
    if (!options.pubKeyCredParams.some((param) => param.alg === COSE_ALGORITHM[algorithm])) {
      throw new Error(`software authenticator: the relying party does not accept ${algorithm}`);
    }
    const credential: SoftwareCredential = {
      id: b64url(randomBytes(16)),
      rpId,
      userHandle: options.user.id,
      algorithm,
      ...keyPair(algorithm),
      counter: 0,
    };
    const clientDataJSON = this.#clientData("webauthn.create", options.challenge, tampering);
    const authData = this.#attestedAuthData(credential, tampering);
    const attestationObject = encodeCbor(
      new Map<CborKey, CborValue>([
        ["fmt", this.#options.attestation],
        ["attStmt", this.#statement(credential, concat(authData, sha256(clientDataJSON)), tampering)],
        ["authData", authData],
      ]),
    );
    this.#credentials.push(credential);
    return {
      id: credential.id,
      rawId: credential.id,
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: ["internal"],
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }

  /**
   * navigator.credentials.get(): an assertion by the first of its credentials the options allow, or, when they
   * allow none in particular (a passkey sign-in), by the last it made for the relying party.
   */
  get(options: RequestOptionsJSON, tampering: Tampering = {}): AuthenticationResponseJSON {
    const credential = this.#credentialFor(this.#rpIdOf(options.rpId), options.allowCredentials ?? []);
    credential.counter += 1;
    const clientDataJSON = this.#clientData("webauthn.get", options.challenge, tampering);
    const authData = concat(
      sha256(tampering.rpId ?? credential.rpId),
      Uint8Array.of(this.#flags(tampering)),
      counterBytes(credential.counter),
    );
    const signature = signWith(credential, concat(authData, sha256(clientDataJSON)), tampering);
    return {
      id: credential.id,
      rawId: credential.id,
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }

  /** The options' rp id, which must be its own (a browser refuses one its origin does not belong to). */
  #rpIdOf(requested: string | undefined): string {
    const rpId = requested ?? this.#options.rpId;
    if (rpId !== this.#options.rpId) {
      throw new Error(`software authenticator: rp id ${rpId} is not ${this.#options.rpId}`);
    }
    return rpId;
  }

  /** An authenticator asked to register again a credential it holds refuses (InvalidStateError). */
  #refuseExcluded(rpId: string, excluded: readonly CredentialDescriptorJSON[]): void {
    const own = excluded.find((d) => this.#credentials.some((c) => c.id === d.id && c.rpId === rpId));
    if (own !== undefined) throw new Error(`software authenticator: credential ${own.id} is already registered`);
  }

  #credentialFor(rpId: string, allowed: readonly CredentialDescriptorJSON[]): SoftwareCredential {
    const mine = this.#credentials.filter((c) => c.rpId === rpId);
    const credential =
      allowed.length === 0 ? mine.at(-1) : mine.find((c) => allowed.some((descriptor) => descriptor.id === c.id));
    if (credential === undefined) throw new Error(`software authenticator: no credential for ${rpId} allowed`);
    return credential;
  }

  #clientData(type: string, challenge: string, tampering: Tampering): Uint8Array {
    const clientData = {
      type: tampering.type ?? type,
      challenge: tampering.challenge ?? challenge,
      origin: tampering.origin ?? this.#options.origin,
      crossOrigin: false,
    };
    return new TextEncoder().encode(JSON.stringify(clientData));
  }

  #flags(tampering: Tampering): number {
    return FLAG_UP | ((tampering.userVerified ?? this.#options.userVerified) ? FLAG_UV : 0);
  }

  /** Authenticator data with the attested credential: AAGUID, the id's length and the id, the COSE key. */
  #attestedAuthData(credential: SoftwareCredential, tampering: Tampering): Uint8Array {
    const id = new Uint8Array(Buffer.from(credential.id, "base64url"));
    const idLength = Uint8Array.of(id.length >> 8, id.length & 0xff);
    return concat(
      sha256(tampering.rpId ?? credential.rpId),
      Uint8Array.of(this.#flags(tampering) | FLAG_AT),
      counterBytes(credential.counter),
      aaguidBytes(this.#options.aaguid),
      idLength,
      id,
      credential.publicKey,
    );
  }

  /** `none` states nothing; packed self-attestation signs `signed` (authData ‖ hash(clientDataJSON)) with the new key. */
  #statement(credential: SoftwareCredential, signed: Uint8Array, tampering: Tampering): CborValue {
    if (this.#options.attestation === "none") return new Map();
    const sig = signWith(credential, signed, tampering);
    return new Map<CborKey, CborValue>([
      ["alg", COSE_ALGORITHM[credential.algorithm]],
      ["sig", sig],
    ]);
  }
}
