import { createHash } from "node:crypto";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import {
  basicCredentials,
  type StandIn,
  type StandInRequest,
  startStandIn,
} from "../../../packages/adapters-oauth/test/support/stand-in.ts";

export { closeStandIns } from "../../../packages/adapters-oauth/test/support/stand-in.ts";

export const CLIENT_ID = "latchkey-e2e-client";
export const CLIENT_SECRET = "latchkey-e2e-secret";

/** Who signs in at the stand-in next, as GitHub would describe them. */
export interface GitHubPerson {
  readonly id: number;
  readonly login: string;
  readonly name?: string;
  readonly emails: readonly { email: string; verified: boolean; primary: boolean }[];
}

/**
 * GitHub played locally (Enterprise Server's layout, as EXTERNAL_GITHUB_URL makes the server use): its authorize
 * page signs in whoever `signIn` names at once, or refuses when `refuse` is set, and sends the browser to the
 * redirect_uri it was given with a single-use code; the token endpoint checks HTTP Basic, the code and the
 * redirect_uri; the API answers for the token it issued.
 */
export async function startGitHub(): Promise<
  StandIn & { signIn(person: GitHubPerson): void; refuse(refusing: boolean): void }
> {
  let person: GitHubPerson | undefined;
  let refusing = false;
  const codes = new Map<string, { person: GitHubPerson; redirectUri: string }>();
  const tokens = new Map<string, GitHubPerson>();
  const bearer = (request: StandInRequest) => tokens.get(request.headers.authorization?.replace(/^Bearer /, "") ?? "");
  const standIn = await startStandIn({
    "GET /login/oauth/authorize": (request) => {
      const redirectUri = request.query.get("redirect_uri")!;
      const back = new URL(redirectUri);
      back.searchParams.set("state", request.query.get("state") ?? "");
      if (refusing || !person) {
        back.searchParams.set("error", "access_denied");
        back.searchParams.set("error_description", "The user has denied your application access.");
      } else {
        const code = `code-${Math.random().toString(36).slice(2)}`;
        codes.set(code, { person, redirectUri });
        back.searchParams.set("code", code);
      }
      return { status: 302, headers: { Location: back.toString() } };
    },
    "POST /login/oauth/access_token": (request) => {
      const credentials = basicCredentials(request);
      if (credentials?.id !== CLIENT_ID || credentials.secret !== CLIENT_SECRET) {
        return { status: 401, json: { error: "invalid_client" } };
      }
      const issued = codes.get(request.form["code"] ?? "");
      codes.delete(request.form["code"] ?? "");
      if (!issued || issued.redirectUri !== request.form["redirect_uri"]) {
        return { json: { error: "bad_verification_code" } };
      }
      const token = `gho_${Math.random().toString(36).slice(2)}`;
      tokens.set(token, issued.person);
      return { json: { access_token: token, token_type: "bearer", scope: "user:email" } };
    },
    "GET /api/v3/user": (request) => {
      const who = bearer(request);
      return who
        ? {
            json: {
              id: who.id,
              login: who.login,
              name: who.name ?? null,
              avatar_url: `https://avatars.example/${who.id}`,
            },
          }
        : { status: 401, json: { message: "Bad credentials" } };
    },
    "GET /api/v3/user/emails": (request) => {
      const who = bearer(request);
      return who ? { json: who.emails } : { status: 401, json: { message: "Bad credentials" } };
    },
  });
  return {
    ...standIn,
    signIn: (next) => {
      person = next;
    },
    refuse: (next) => {
      refusing = next;
    },
  };
}

/** Google's OpenID provider played locally: discovery and its key set, and id_tokens as native sign-ins get them. */
export async function startGoogle() {
  const { privateKey, publicKey } = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "google-key-1", alg: "RS256", use: "sig" };
  const standIn = await startStandIn({
    "GET /.well-known/openid-configuration": () => ({
      json: {
        issuer: standIn.url,
        authorization_endpoint: `${standIn.url}/o/oauth2/v2/auth`,
        token_endpoint: `${standIn.url}/token`,
        userinfo_endpoint: `${standIn.url}/v1/userinfo`,
        jwks_uri: `${standIn.url}/oauth2/v3/certs`,
      },
    }),
    "GET /oauth2/v3/certs": () => ({ json: { keys: [jwk] } }),
  });
  /** An id_token for the app's client, with Google's claims; `rawNonce` goes in hashed, as apps send it. */
  const idToken = (claims: Record<string, unknown>, rawNonce?: string) =>
    new SignJWT({
      email_verified: true,
      ...claims,
      ...(rawNonce ? { nonce: createHash("sha256").update(rawNonce).digest("hex") } : {}),
    })
      .setProtectedHeader({ alg: "RS256", kid: "google-key-1", typ: "JWT" })
      .setIssuer(standIn.url)
      .setAudience(CLIENT_ID)
      .setIssuedAt()
      .setExpirationTime("10m")
      .sign(privateKey);
  return { ...standIn, idToken };
}
