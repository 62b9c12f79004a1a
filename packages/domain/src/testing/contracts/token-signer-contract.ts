import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { isAuthError } from "../../errors.ts";
import type { TokenSigner } from "../../ports/token-signer.ts";

export interface TokenSignerSubject {
  readonly signer: TokenSigner;
  /** A signer of the same kind with another key: nothing it signs may verify with `signer`. */
  readonly stranger: TokenSigner;
  /** Now, in seconds since the epoch, as the signer judges `exp`. */
  readonly now: () => number;
}

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const decode = (part: string | undefined) =>
  JSON.parse(Buffer.from(part ?? "", "base64url").toString()) as Record<string, unknown>;

async function refusal(signer: TokenSigner, token: string): Promise<unknown> {
  return signer.verify(token).then(
    (claims) => ({ accepted: claims }),
    (error: unknown) => (isAuthError(error, "bad_jwt") ? "bad_jwt" : error),
  );
}

/**
 * What every TokenSigner must do, whatever its algorithm and keys: give back exactly the claims it signed, judge
 * `exp` when there is one, and refuse with `bad_jwt` every token it did not sign as it stands.
 */
export function describeTokenSignerContract(name: string, setup: () => Promise<TokenSignerSubject>): void {
  describe(`${name}: token signer contract`, () => {
    const claimsAt = (now: number) => ({
      sub: "8d0f5e2a-1c3b-4d5e-8f60-7a8b9c0d1e2f",
      role: "authenticated",
      aud: "authenticated",
      iat: now,
      exp: now + 3600,
      session_id: "5f4e3d2c-1b0a-4987-8654-3210fedcba98",
      amr: [{ method: "password", timestamp: now }],
      user_metadata: { name: "Zoë 🎈", nested: { list: [1, "two", null] } },
    });

    it("gives back exactly the claims it signed", async () => {
      const { signer, now } = await setup();
      const claims = claimsAt(now());
      expect(await signer.verify(await signer.sign(claims))).toEqual(claims);
    });

    it("writes a compact JWS whose header names its type and a real algorithm", async () => {
      const { signer, now } = await setup();
      const parts = (await signer.sign(claimsAt(now()))).split(".");
      expect(parts).toHaveLength(3);
      const header = decode(parts[0]);
      expect(header["typ"]).toBe("JWT");
      expect(typeof header["alg"]).toBe("string");
      expect(String(header["alg"]).toLowerCase()).not.toBe("none");
    });

    it("judges exp when there is one, and accepts a token without (whether one may lack it is the domain's rule)", async () => {
      const { signer, now } = await setup();
      expect(await refusal(signer, await signer.sign({ ...claimsAt(now()), exp: now() - 5 }))).toBe("bad_jwt");
      const apiKey = { role: "anon", iss: "supabase" };
      // A signer may stamp an iat where none was given; it adds nothing else.
      const { iat, ...rest } = await signer.verify(await signer.sign(apiKey));
      expect(rest).toEqual(apiKey);
      expect(iat === undefined || typeof iat === "number").toBe(true);
    });

    it("refuses a token signed with another key", async () => {
      const { signer, stranger, now } = await setup();
      expect(await refusal(signer, await stranger.sign(claimsAt(now())))).toBe("bad_jwt");
    });

    it("refuses a token changed in any part", async () => {
      const { signer, now } = await setup();
      const claims = claimsAt(now());
      const [header, payload, signature] = (await signer.sign(claims)).split(".") as [string, string, string];
      const otherAlgorithm = encode({ ...decode(header), alg: decode(header)["alg"] === "HS512" ? "HS256" : "HS512" });
      const raised = encode({ ...claims, role: "service_role" });
      const flipped = `${signature.slice(0, -2)}${signature.endsWith("AA") ? "BB" : "AA"}`;
      for (const tampered of [
        `${otherAlgorithm}.${payload}.${signature}`,
        `${header}.${raised}.${signature}`,
        `${header}.${payload}.${flipped}`,
      ]) {
        expect(await refusal(signer, tampered)).toBe("bad_jwt");
      }
    });

    it("refuses an unsigned token, and one signed with a guessable key", async () => {
      const { signer, now } = await setup();
      const raised = encode({ ...claimsAt(now()), role: "service_role" });
      expect(await refusal(signer, `${encode({ alg: "none", typ: "JWT" })}.${raised}.`)).toBe("bad_jwt");
      const body = `${encode({ alg: "HS256", typ: "JWT" })}.${raised}`;
      for (const key of ["", "secret", "null"]) {
        expect(await refusal(signer, `${body}.${createHmac("sha256", key).update(body).digest("base64url")}`)).toBe(
          "bad_jwt",
        );
      }
    });

    it("refuses what is not a JWT at all", async () => {
      const { signer } = await setup();
      for (const token of ["", "abc", "a.b.c", "..", `${encode({ alg: "HS256" })}.not-json.sig`, "e30.e30.e30.e30"]) {
        expect(await refusal(signer, token)).toBe("bad_jwt");
      }
    });
  });
}
