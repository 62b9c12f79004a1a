import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { chooseProviderEmail } from "../../model/account-linking.ts";
import type { Metadata } from "../../model/metadata.ts";
import type { ProviderEmail, ProviderTokens } from "../../model/provider-profile.ts";
import { type AuthorizationStart, type OAuthProvider, OAuthProviderFailure } from "../../ports/oauth-provider.ts";

/** A request the provider's hosts received, as the suite reads it. */
export interface ProviderRequest {
  readonly method: string;
  /** Its path, without the query. */
  readonly path: string;
  /** Its headers, by lower-case name. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** Its body's fields, when it is a form (else empty). */
  readonly form: Readonly<Record<string, string>>;
}

/**
 * What one provider is documented to do, and who its answers say signed in: the table the suite checks every
 * provider against. Paths are on the provider's host (`origin` of the subject), whichever host the provider
 * would use in production, since every host becomes the one EXTERNAL_<P>_URL names.
 */
export interface OAuthProviderFixture<Answers = unknown> {
  /** The canonical name. */
  readonly name: string;
  /** OAuth 2.0's code flow (RFC 6749), or OAuth 1.0a's three legs (RFC 5849, Twitter). */
  readonly protocol: "oauth2" | "oauth1";
  /** The provider's documented answers (its token and profile answers), untouched by the suite: the subject plays them. */
  readonly answers: Answers;
  readonly authorize: {
    /** The path of the URL the browser is sent to. */
    readonly endpoint: string;
    /** The scopes asked for by default, in order; none: no `scope` parameter. */
    readonly scopes: readonly string[];
    /** Whether the app's `scopes=` are added to them. */
    readonly takesScopes: boolean;
    /** PKCE towards the provider (S256, with a verifier the provider keeps as the flow's secret). */
    readonly pkce?: boolean;
    /** Further parameters of the URL: fixed ones (Apple's `response_mode`), OAuth 1.0a's request token. */
    readonly params?: Readonly<Record<string, string>>;
  };
  /** The parameters of the provider's callback: the code (OAuth 2.0), or the token and verifier (OAuth 1.0a). */
  readonly callback: Readonly<Record<string, string>>;
  readonly exchange: {
    /** The path the code (or verifier) is POSTed to. */
    readonly endpoint: string;
    /** How the client authenticates there: HTTP Basic, the secret in the form, or an OAuth 1.0a signature. */
    readonly clientAuth: "basic" | "post" | "oauth1";
  };
  /** The tokens handed to the app (`provider_token`, `provider_refresh_token`). */
  readonly tokens: ProviderTokens;
  readonly identity: ExpectedIdentity;
}

/** Who signed in, as the flow will store them (identity_data and user_metadata); an absent claim must be absent. */
export interface ExpectedIdentity {
  /** The person's id at the provider: the subject, `sub` and `provider_id`. */
  readonly id: string;
  /** The address the flow chooses, lower-cased; null when the provider reports none. */
  readonly email: string | null;
  readonly email_verified: boolean;
  readonly name?: string;
  /** `avatar_url`. */
  readonly avatar?: string;
  readonly custom_claims?: Metadata;
  /**
   * Every other claim: `full_name`, `picture`, `user_name`, ... `iss`, unless named here (a constant, as
   * Snapchat's), must be on the provider's host.
   */
  readonly claims?: Metadata;
  /** Every address the provider reports, when it reports more than the one chosen. */
  readonly emails?: readonly ProviderEmail[];
}

/** One provider configured against the hosts that play the fixture's answers. */
export interface OAuthProviderSubject {
  readonly provider: OAuthProvider;
  /** The client it was configured with: EXTERNAL_<P>_CLIENT_ID (the first), _SECRET and _REDIRECT_URI. */
  readonly client: { readonly id: string; readonly secret: string; readonly redirectUri: string };
  /** The origin of the provider's hosts: `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** Every request the hosts received so far, in order. */
  readonly requests: () => readonly ProviderRequest[];
  /** The same provider, whose token endpoint refuses the code (400 `invalid_grant`, in PROVIDER_WORDS). */
  readonly refusingCode?: OAuthProvider;
  /**
   * The same provider, whose profile endpoints refuse the access token (401, in PROVIDER_WORDS); absent when the
   * token answer alone says who signed in.
   */
  readonly refusingToken?: OAuthProvider;
  readonly close?: () => Promise<void>;
}

/** Words a refusing provider puts in its answers, which must reach the log only, never an error's message. */
export const PROVIDER_WORDS = "the-provider-says-something-private";

const STATE = "0b6f3c2e-5a1d-4e8f-9c7b-2d4a6e8f0a1c";
/** What the app asks for besides the defaults, which only providers that take scopes add. */
const ASKED_SCOPE = "contract.asked";

/** The protocol parameters of an `Authorization: OAuth ...` header, decoded. */
function oauth1Parameters(header: string | undefined): Record<string, string> {
  if (!header?.startsWith("OAuth ")) return {};
  return Object.fromEntries(
    [...header.slice(6).matchAll(/([^\s=,]+)="([^"]*)"/g)].map(([, name, value]) => [
      decodeURIComponent(name ?? ""),
      decodeURIComponent(value ?? ""),
    ]),
  );
}

/** The client of an HTTP Basic header, form-decoded as RFC 6749 §2.3.1 encodes it. */
function basicClient(header: string | undefined): { id: string; secret: string } | undefined {
  if (!header?.startsWith("Basic ")) return undefined;
  // Form-encoded first, so ASCII: atob's Latin-1 reading is exact.
  const decoded = atob(header.slice(6));
  const colon = decoded.indexOf(":");
  const decode = (text: string) => decodeURIComponent(text.replaceAll("+", " "));
  return { id: decode(decoded.slice(0, colon)), secret: decode(decoded.slice(colon + 1)) };
}

/** The claims the fixture expects, absent ones left out. */
function expectedClaims(fixture: OAuthProviderFixture, iss: unknown): Metadata {
  const { id, name, avatar, custom_claims, claims } = fixture.identity;
  const present = Object.entries({ name, avatar_url: avatar, custom_claims }).filter(
    ([, value]) => value !== undefined,
  );
  return { iss, sub: id, provider_id: id, ...Object.fromEntries(present), ...claims };
}

/**
 * What every OAuthProvider must do, from one fixture per provider: send the browser to the documented endpoint
 * with the client, the callback, the state, the scopes (and PKCE where used); trade the callback's code at the
 * documented endpoint, authenticated as documented; read the documented answers as the identity GoTrue would
 * store; and fail, naming the stage, without the provider's words in the message.
 */
export function describeOAuthProviderContract<F extends OAuthProviderFixture>(
  fixtures: readonly F[],
  setup: (fixture: F) => Promise<OAuthProviderSubject>,
): void {
  for (const fixture of fixtures) {
    describe(`${fixture.name}: OAuth provider contract`, () => {
      /** Starts a sign-in as the domain does, asking for one scope besides the defaults. */
      const start = (provider: OAuthProvider) =>
        provider.authorize({ state: STATE, scopes: [ASKED_SCOPE], params: [] });

      it("is the provider it says, taking the app's scopes or not as documented", async () => {
        const { provider, close } = await setup(fixture);
        expect(provider.name).toBe(fixture.name);
        expect(provider.takesScopes).toBe(fixture.authorize.takesScopes);
        await close?.();
      });

      it("sends the browser to the authorization endpoint with the client, the callback, the state and the scopes", async () => {
        const { provider, client, origin, requests, close } = await setup(fixture);
        const started = await start(provider);
        const url = new URL(started.url);
        expect(`${url.origin}${url.pathname}`).toBe(`${origin}${fixture.authorize.endpoint}`);
        const query = Object.fromEntries(url.searchParams);
        if (fixture.protocol === "oauth1") {
          // The state rides in the callback registered with the request token, which is all Twitter hands back.
          expect(query).toEqual({ ...fixture.authorize.params });
          const callbacks = requests().map((request) => oauth1Parameters(request.headers["authorization"]));
          const separator = client.redirectUri.includes("?") ? "&" : "?";
          expect(callbacks.map((protocol) => protocol["oauth_callback"])).toContain(
            `${client.redirectUri}${separator}state=${STATE}`,
          );
        } else {
          const scopes = [...fixture.authorize.scopes, ...(fixture.authorize.takesScopes ? [ASKED_SCOPE] : [])];
          const { code_challenge: challenge, ...rest } = query;
          expect(rest).toEqual({
            ...fixture.authorize.params,
            response_type: "code",
            client_id: client.id,
            redirect_uri: client.redirectUri,
            state: STATE,
            ...(scopes.length > 0 ? { scope: scopes.join(" ") } : {}),
            ...(fixture.authorize.pkce ? { code_challenge_method: "S256" } : {}),
          });
          // Spaces as %20: some providers (Apple) do not read `+` as a space.
          if (scopes.length > 1) expect(started.url).not.toMatch(/[?&]scope=[^&]*\+/);
          if (fixture.authorize.pkce) {
            expect(started.secret).toMatch(/^[\w.~-]{43,128}$/);
            expect(challenge).toBe(
              createHash("sha256")
                .update(started.secret ?? "")
                .digest("base64url"),
            );
          } else {
            expect(challenge).toBeUndefined();
            expect(started.secret).toBeUndefined();
          }
        }
        await close?.();
      });

      it("trades the callback at the token endpoint, authenticated as documented, and reads who signed in", async () => {
        const { provider, client, origin, requests, close } = await setup(fixture);
        const started: AuthorizationStart = await start(provider);
        const signIn = await provider.complete({ params: fixture.callback, secret: started.secret ?? null });

        const exchanges = requests().filter(
          (request) => request.method === "POST" && request.path === fixture.exchange.endpoint,
        );
        expect(exchanges.length).toBeGreaterThan(0);
        const exchange = exchanges.at(-1)!;
        const authorization = exchange.headers["authorization"];
        if (fixture.exchange.clientAuth === "oauth1") {
          expect(oauth1Parameters(authorization)).toMatchObject({
            oauth_consumer_key: client.id,
            oauth_token: fixture.callback["oauth_token"],
            oauth_verifier: fixture.callback["oauth_verifier"],
            oauth_signature_method: "HMAC-SHA1",
            oauth_signature: expect.stringMatching(/.+/),
          });
        } else {
          const post = fixture.exchange.clientAuth === "post";
          expect(exchange.form).toEqual({
            grant_type: "authorization_code",
            code: fixture.callback["code"],
            redirect_uri: client.redirectUri,
            ...(fixture.authorize.pkce ? { code_verifier: started.secret } : {}),
            ...(post ? { client_id: client.id, client_secret: client.secret } : {}),
          });
          expect(basicClient(authorization)).toEqual(post ? undefined : { id: client.id, secret: client.secret });
        }

        expect(signIn.tokens).toEqual(fixture.tokens);
        const { profile } = signIn;
        const { identity } = fixture;
        expect(profile.subject).toBe(identity.id);
        const iss = profile.claims["iss"];
        if (identity.claims?.["iss"] === undefined) {
          expect(typeof iss === "string" && iss.startsWith(origin)).toBe(true);
        }
        expect(profile.claims).toEqual(expectedClaims(fixture, iss));
        const chosen = chooseProviderEmail(profile.emails);
        expect(chosen?.address.toLowerCase() ?? null).toBe(identity.email);
        expect(chosen?.verified ?? false).toBe(identity.email_verified);
        if (identity.emails) expect(profile.emails).toEqual(identity.emails);
        await close?.();
      });

      it("fails at the exchange when the provider refuses the code, naming itself, never in its words", async (context) => {
        const { refusingCode, close } = await setup(fixture);
        if (!refusingCode) return context.skip("this subject has no provider that refuses the code");
        const started = await start(refusingCode).catch(() => undefined);
        const failure: unknown = await refusingCode
          .complete({ params: fixture.callback, secret: started?.secret ?? null })
          .then(
            () => new Error("signed in with a refused code"),
            (error: unknown) => error,
          );
        expect(failure).toBeInstanceOf(OAuthProviderFailure);
        expect(failure).toMatchObject({ provider: fixture.name, stage: "exchange" });
        expect((failure as Error).message).not.toContain(PROVIDER_WORDS);
        // They go to the cause, which is logged.
        expect(JSON.stringify((failure as Error).cause)).toContain(PROVIDER_WORDS);
        await close?.();
      });

      it("fails at the profile when the provider refuses the access token", async (context) => {
        const { refusingToken, close } = await setup(fixture);
        if (!refusingToken) return context.skip("the token answer alone says who signed in");
        const started = await start(refusingToken);
        const failure: unknown = await refusingToken
          .complete({ params: fixture.callback, secret: started.secret ?? null })
          .then(
            () => new Error("signed in with a refused token"),
            (error: unknown) => error,
          );
        expect(failure).toBeInstanceOf(OAuthProviderFailure);
        expect(failure).toMatchObject({ provider: fixture.name, stage: "profile" });
        expect((failure as Error).message).not.toContain(PROVIDER_WORDS);
        expect(JSON.stringify((failure as Error).cause)).toContain(PROVIDER_WORDS);
        await close?.();
      });
    });
  }
}
