import { createHmac, timingSafeEqual } from "node:crypto";
import { AuthError } from "../errors.ts";
import type { Clock } from "../ports/clock.ts";
import type { TokenSigner } from "../ports/token-signer.ts";

const HEADER = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url");
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const refused = (reason: string) => new AuthError("bad_jwt", `invalid JWT: ${reason}`);

/**
 * A JWT-shaped HS256 signer with a fixed key that checks `exp`, when there is one, against the test clock. It
 * accepts only the header it writes, so it passes the same contract as the real signers.
 */
export class TestTokenSigner implements TokenSigner {
  /** Stands for a key of JWT_KEYS, so that the OAuth server's id_tokens can be tested; a test may turn it off. */
  publiclyVerifiable = true;

  constructor(
    private readonly clock: Clock,
    private readonly key = "test-token-signer-key",
  ) {}

  async sign(claims: Readonly<Record<string, unknown>>): Promise<string> {
    const body = `${HEADER}.${encode(claims)}`;
    return `${body}.${this.signature(body)}`;
  }

  async verify(token: string): Promise<Readonly<Record<string, unknown>>> {
    const [header, payload, signature, ...rest] = token.split(".");
    const expected = this.signature(`${header}.${payload}`);
    if (header !== HEADER || !payload || !signature || rest.length > 0 || signature.length !== expected.length) {
      throw refused("unable to parse or verify signature");
    }
    if (!timingSafeEqual(Buffer.from(signature), Buffer.from(expected)))
      throw refused("unable to parse or verify signature");
    let claims: Record<string, unknown>;
    try {
      claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<string, unknown>;
    } catch {
      throw refused("unable to parse or verify signature");
    }
    const exp = claims["exp"];
    if (exp !== undefined && (typeof exp !== "number" || exp * 1000 <= this.clock.now().getTime()))
      throw refused("token is expired");
    return claims;
  }

  private signature(body: string): string {
    return createHmac("sha256", this.key).update(body).digest("base64url");
  }
}
