import { type OAuthProviderFixture, type OAuthProviderSubject, PROVIDER_WORDS } from "@latchkey/domain/testing";
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";
import type { ProviderDefinition } from "../../src/provider-definition.ts";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  providerAt,
  REDIRECT_URI,
  type Reply,
  type StandIn,
  type StandInRequest,
  startStandIn,
} from "./stand-in.ts";

/** An answer of the stand-in: fixed, or read from the request (to check what the provider documents it needs). */
type Answer = Reply | ((request: StandInRequest) => Reply);

/** A provider's documented answers, by role, as the stand-in plays them. */
interface FixtureAnswers {
  /** The token endpoint's answer to the code (or verifier), at the exchange's endpoint. */
  readonly token: Answer;
  /** What the profile is read from, by route ("GET /path"); each wants the access token, as the provider does. */
  readonly profile?: Readonly<Record<string, Answer>>;
  /** Everything else the flow reads, by route: OIDC discovery, key sets, Twitter's request token. */
  readonly others?: Readonly<Record<string, Answer>>;
}

/** Where the stand-in runs, and what an OIDC provider's answers are made with. */
interface FixtureHost {
  /** The stand-in's origin, `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Signs claims as an id_token with the host's key (RS256, `kid` `fixture-key`), valid for ten minutes. */
  idToken(claims: JWTPayload): Promise<string>;
  /** The key set that publishes that key. */
  readonly jwks: { readonly keys: readonly object[] };
}

/** One provider's fixture: the contract's table row, with the definition it is for and its answers. */
export interface ProviderFixture
  extends OAuthProviderFixture<(host: FixtureHost) => FixtureAnswers | Promise<FixtureAnswers>> {
  readonly definition: ProviderDefinition;
  /** EXTERNAL_<P>_URL after the stand-in's origin: a realm (`/realms/acme`), a tenant; none for most. */
  readonly base?: string;
}

/** A fixture for a definition, named after it. */
export function fixtureOf(definition: ProviderDefinition, fixture: Omit<ProviderFixture, "name" | "definition">) {
  return { name: definition.name, definition, ...fixture } satisfies ProviderFixture;
}

const KEY_ID = "fixture-key";
const signing = await generateKeyPair("RS256");
const JWKS = { keys: [{ ...(await exportJWK(signing.publicKey)), kid: KEY_ID, alg: "RS256", use: "sig" }] };

function hostAt(url: string): FixtureHost {
  return {
    url,
    jwks: JWKS,
    idToken: (claims) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: "RS256", kid: KEY_ID, typ: "JWT" })
        .setIssuedAt()
        .setExpirationTime("10m")
        .sign(signing.privateKey),
  };
}

/** What the stand-in refuses with, in words that must stay out of every error's message. */
const REFUSED_CODE: Reply = { status: 400, json: { error: "invalid_grant", error_description: PROVIDER_WORDS } };
const REFUSED_TOKEN: Reply = { status: 401, json: { error: "invalid_token", error_description: PROVIDER_WORDS } };

/** Whether a profile request carries the access token as the provider wants it: a Bearer, or signed with it. */
function carriesAccessToken(fixture: ProviderFixture, request: StandInRequest): boolean {
  const header = request.headers.authorization ?? "";
  const token = fixture.tokens.accessToken;
  return fixture.protocol === "oauth1"
    ? header.startsWith("OAuth ") && header.includes(`oauth_token="${encodeURIComponent(token)}"`)
    : header === `Bearer ${token}`;
}

const answered = (answer: Answer, request: StandInRequest): Reply =>
  typeof answer === "function" ? answer(request) : answer;

/** The provider against a stand-in playing the fixture's answers; `refuse` makes it refuse the code or the token. */
async function playing(
  fixture: ProviderFixture,
  refuse?: "code" | "token",
): Promise<{ standIn: StandIn; provider: ReturnType<typeof providerAt> }> {
  const routes: Record<string, (request: StandInRequest) => Reply> = {};
  const standIn = await startStandIn(routes);
  const answers = await fixture.answers(hostAt(standIn.url));
  for (const [route, answer] of Object.entries(answers.others ?? {})) {
    routes[route] = (request) => answered(answer, request);
  }
  for (const [route, answer] of Object.entries(answers.profile ?? {})) {
    routes[route] = (request) =>
      refuse === "token" || !carriesAccessToken(fixture, request) ? REFUSED_TOKEN : answered(answer, request);
  }
  routes[`POST ${fixture.exchange.endpoint}`] = (request) =>
    refuse === "code" ? REFUSED_CODE : answered(answers.token, request);
  return { standIn, provider: providerAt(fixture.definition, `${standIn.url}${fixture.base ?? ""}`) };
}

/** The contract's subject for one fixture: the provider, and the same provider refusing the code or the token. */
export async function subjectOf(fixture: ProviderFixture): Promise<OAuthProviderSubject> {
  const { standIn, provider } = await playing(fixture);
  const refusingCode = await playing(fixture, "code");
  const hasProfileRequests = Object.keys((await fixture.answers(hostAt(standIn.url))).profile ?? {}).length > 0;
  const refusingToken = hasProfileRequests ? await playing(fixture, "token") : undefined;
  return {
    provider,
    client: { id: CLIENT_ID, secret: CLIENT_SECRET, redirectUri: REDIRECT_URI },
    origin: standIn.url,
    requests: () =>
      standIn.requests.map((request) => ({
        method: request.method,
        path: request.path,
        headers: request.headers as Record<string, string | undefined>,
        form: request.form,
      })),
    refusingCode: refusingCode.provider,
    ...(refusingToken ? { refusingToken: refusingToken.provider } : {}),
  };
}
