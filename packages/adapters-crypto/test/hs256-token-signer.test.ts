import { isAuthError } from "@latchkey/domain";
import { describeTokenSignerContract } from "@latchkey/domain/testing";
import { generateKeyPair, SignJWT, UnsecuredJWT } from "jose";
import { describe, expect, it, vi } from "vitest";
import { createHs256TokenSigner } from "../src/hs256-token-signer.ts";

const secret = "a-test-secret-that-is-long-enough-for-hs256";
const signer = createHs256TokenSigner(secret);
const key = new TextEncoder().encode(secret);
const now = () => Math.floor(Date.now() / 1000);

async function rejectsAsBadJwt(token: string) {
  let error: unknown;
  try {
    await signer.verify(token);
  } catch (caught) {
    error = caught;
  }
  expect(isAuthError(error, "bad_jwt")).toBe(true);
}

describe("HS256 token signer", () => {
  it("signs claims into an HS256 JWT that verifies back to the same claims", async () => {
    const claims = {
      sub: "u",
      role: "authenticated",
      exp: now() + 60,
      iat: now(),
      amr: [{ method: "password", timestamp: 1 }],
    };
    const token = await signer.sign(claims);
    expect(JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString())).toEqual({ alg: "HS256", typ: "JWT" });
    expect(await signer.verify(token)).toEqual(claims);
  });

  it("accepts a Supabase-style service key signed with the same secret", async () => {
    const serviceKey = await new SignJWT({ role: "service_role" })
      .setProtectedHeader({ alg: "HS256" })
      .setExpirationTime("1h")
      .sign(key);
    expect((await signer.verify(serviceKey))["role"]).toBe("service_role");
  });

  it("verifies a token without exp (whether it may lack one is the domain's rule)", async () => {
    const anonKey = await new SignJWT({ role: "anon" }).setProtectedHeader({ alg: "HS256" }).sign(key);
    expect(await signer.verify(anonKey)).toEqual({ role: "anon" });
  });

  it("refuses expired, tampered, unsigned, other-algorithm and other-key tokens", async () => {
    await rejectsAsBadJwt(await signer.sign({ sub: "u", exp: now() - 1 }));
    const good = await signer.sign({ sub: "u", role: "authenticated", exp: now() + 60 });
    const [header, , signature] = good.split(".");
    const forgedPayload = Buffer.from(JSON.stringify({ sub: "u", role: "service_role", exp: now() + 60 })).toString(
      "base64url",
    );
    await rejectsAsBadJwt(`${header}.${forgedPayload}.${signature}`);
    await rejectsAsBadJwt(new UnsecuredJWT({ sub: "u", role: "service_role", exp: now() + 60 }).encode());
    await rejectsAsBadJwt(
      await new SignJWT({ sub: "u", exp: now() + 60 }).setProtectedHeader({ alg: "HS512" }).sign(key),
    );
    await rejectsAsBadJwt(
      await new SignJWT({ sub: "u", exp: now() + 60 })
        .setProtectedHeader({ alg: "HS256" })
        .sign(new TextEncoder().encode(`${secret}-other`)),
    );
    const { privateKey } = await generateKeyPair("RS256");
    await rejectsAsBadJwt(
      await new SignJWT({ sub: "u", exp: now() + 60 }).setProtectedHeader({ alg: "RS256" }).sign(privateKey),
    );
    await rejectsAsBadJwt("not.a.jwt");
    await rejectsAsBadJwt("");
  });

  it("starts without a process warning, which an operator would read as a security problem", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      createHs256TokenSigner(secret);
      // process.emitWarning emits on a later tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings).toEqual([]);
  });

  it("keeps refusing a forged sibling of a token it verified, and the token itself once it expires", async () => {
    vi.useFakeTimers({ now: new Date("2026-11-23T12:00:00Z"), toFake: ["Date"] });
    try {
      const claims = { sub: "u", role: "authenticated", iat: now(), exp: now() + 60 };
      const good = await signer.sign(claims);
      expect(await signer.verify(good)).toEqual(claims);
      expect(await signer.verify(good)).toEqual(claims);
      const [header, , signature] = good.split(".");
      const forged = Buffer.from(JSON.stringify({ ...claims, role: "service_role" })).toString("base64url");
      await rejectsAsBadJwt(`${header}.${forged}.${signature}`);

      vi.setSystemTime(new Date("2026-11-23T12:01:01Z"));
      await rejectsAsBadJwt(good);
    } finally {
      vi.useRealTimers();
    }
  });
});

describeTokenSignerContract("HS256", async () => ({
  signer,
  stranger: createHs256TokenSigner(`${secret}-other`),
  now,
}));
