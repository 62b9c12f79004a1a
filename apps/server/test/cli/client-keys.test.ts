import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseKeyRing } from "@latchkey/adapters-crypto";
import { decodeProtectedHeader, importJWK, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { keysCommand } from "../../src/cli/keys-command.ts";
import { PRODUCTION_ENV, tempCwd } from "../config/support.ts";

/** `latchkey keys` with this environment and no .env file: its lines as a map. */
async function keys(env: Record<string, string | undefined>, cwd = tempCwd()) {
  const result = await keysCommand([], { env, cwd, dotenv: { text: "" } });
  const lines = new Map((result.out ?? "").split("\n").map((line) => line.split("=", 2) as [string, string]));
  return { ...result, lines };
}

const secretOf = (secret: string) => new TextEncoder().encode(secret);
const YEAR_SECONDS = 365 * 24 * 60 * 60;

describe("latchkey keys (no arguments)", () => {
  it("prints the URL, anon key and service_role key, HS256 JWTs of JWT_SECRET with nothing but a role", async () => {
    const { exitCode, lines } = await keys(PRODUCTION_ENV);
    expect(exitCode).toBe(0);
    expect([...lines.keys()]).toEqual(["SUPABASE_URL", "SUPABASE_ANON_KEY", "SUPABASE_SERVICE_ROLE_KEY"]);
    expect(lines.get("SUPABASE_URL")).toBe("https://auth.example.com");
    const secret = secretOf(PRODUCTION_ENV["AUTH_JWT_SECRET"]!);
    for (const [name, role] of [
      ["SUPABASE_ANON_KEY", "anon"],
      ["SUPABASE_SERVICE_ROLE_KEY", "service_role"],
    ] as const) {
      const { payload, protectedHeader } = await jwtVerify(lines.get(name)!, secret, { algorithms: ["HS256"] });
      expect(protectedHeader).toEqual({ alg: "HS256", typ: "JWT" });
      expect(Object.keys(payload).sort()).toEqual(["exp", "iat", "iss", "role"]);
      expect(payload.role).toBe(role);
      expect(payload.exp! - payload.iat!).toBeGreaterThanOrEqual(10 * YEAR_SECONDS);
    }
  });

  it("needs only the signing settings and the URL, and gives the URL without /auth/v1", async () => {
    const env = { ...PRODUCTION_ENV, AUTH_SMTP_HOST: undefined, AUTH_SITE_URL: undefined, AUTH_DB_DRIVER: undefined };
    const { exitCode, lines } = await keys({ ...env, AUTH_API_EXTERNAL_URL: "https://example.com/auth/v1/" });
    expect(exitCode).toBe(0);
    expect(lines.get("SUPABASE_URL")).toBe("https://example.com");
  });

  it("says what is missing, and prints nothing, without a JWT_SECRET in production", async () => {
    const result = await keys({ ...PRODUCTION_ENV, AUTH_JWT_SECRET: undefined });
    expect(result.exitCode).toBe(1);
    expect(result.out).toBeUndefined();
    expect(result.error).toContain("AUTH_JWT_SECRET is required");
    expect(result.error).not.toContain("SMTP");
  });

  it("in the development profile, signs with the secret generated into .latchkey", async () => {
    const cwd = tempCwd();
    const { exitCode, lines } = await keys({}, cwd);
    expect(exitCode).toBe(0);
    expect(lines.get("SUPABASE_URL")).toBe("http://localhost:8081");
    const secret = readFileSync(join(cwd, ".latchkey", "jwt-secret"), "utf8").trim();
    const { payload } = await jwtVerify(lines.get("SUPABASE_SERVICE_ROLE_KEY")!, secretOf(secret));
    expect(payload.role).toBe("service_role");
    expect((await keys({ PORT: "9999" }, cwd)).lines.get("SUPABASE_URL")).toBe("http://localhost:9999");
  });

  it("signs with the ring's key where JWT_VALID_METHODS leaves HS256 out", async () => {
    const ring = (await keysCommand(["generate", "--alg", "ES256"], { env: {}, cwd: tempCwd() })).out!;
    const signer = parseKeyRing(ring).signer;
    const { lines } = await keys({ ...PRODUCTION_ENV, AUTH_JWT_KEYS: ring, AUTH_JWT_VALID_METHODS: "ES256" });
    const anon = lines.get("SUPABASE_ANON_KEY")!;
    expect(decodeProtectedHeader(anon)).toMatchObject({ alg: "ES256", kid: signer.kid });
    const publicKey = await importJWK(signer.publicJwk!, "ES256");
    expect((await jwtVerify(anon, publicKey)).payload.role).toBe("anon");
  });
});
