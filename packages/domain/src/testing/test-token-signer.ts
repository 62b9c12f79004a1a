import { createHmac } from "node:crypto";
import { AuthError } from "../errors.ts";
import type { Clock } from "../ports/clock.ts";
import type { TokenSigner } from "../ports/token-signer.ts";

const KEY = "test-token-signer-key";
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const signature = (body: string) => createHmac("sha256", KEY).update(body).digest("base64url");

/** A JWT-shaped HS256 signer with a fixed key that checks `exp`, when there is one, against the test clock. */
export class TestTokenSigner implements TokenSigner {
  constructor(private readonly clock: Clock) {}

  async sign(claims: Readonly<Record<string, unknown>>): Promise<string> {
    const body = `${encode({ alg: "HS256", typ: "JWT" })}.${encode(claims)}`;
    return `${body}.${signature(body)}`;
  }

  async verify(token: string): Promise<Readonly<Record<string, unknown>>> {
    const [header, payload, sig] = token.split(".");
    if (!header || !payload || sig !== signature(`${header}.${payload}`)) {
      throw new AuthError("bad_jwt", "invalid JWT: unable to parse or verify signature");
    }
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<string, unknown>;
    const exp = claims["exp"];
    if (exp !== undefined && (typeof exp !== "number" || exp * 1000 <= this.clock.now().getTime())) {
      throw new AuthError("bad_jwt", "invalid JWT: token is expired");
    }
    return claims;
  }
}
