import { AuthError, type TokenSigner } from "@latchkey/domain";
import { errors, jwtVerify, SignJWT } from "jose";

/**
 * HS256 with JWT_SECRET, as GoTrue signs by default. Only HS256 is accepted on verification, so a token cannot
 * pick its own algorithm (no `none`, no key confusion). Asymmetric keys will be a second implementation of the
 * same port, keyed by `kid`.
 */
export function createHs256TokenSigner(secret: string): TokenSigner {
  // Imported once: given the raw secret, jose would import it into WebCrypto on every call, which costs more than
  // the signature itself.
  const imported = crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
    "verify",
  ]);
  return {
    sign: async (claims) => new SignJWT({ ...claims }).setProtectedHeader({ alg: "HS256", typ: "JWT" }).sign(await imported),

    async verify(token) {
      const key = await imported;
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: ["HS256"], requiredClaims: ["exp"] });
        return payload;
      } catch (error) {
        const reason = error instanceof errors.JWTExpired ? "token is expired" : "unable to parse or verify signature";
        throw new AuthError("bad_jwt", `invalid JWT: ${reason}`, { cause: error });
      }
    },
  };
}
