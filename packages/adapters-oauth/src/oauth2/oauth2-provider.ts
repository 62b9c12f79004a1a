import type { OAuthProvider } from "@latchkey/domain";
import { atStage, providerFailure } from "../http/provider-http.ts";
import type { OAuth2Definition, ProviderContext } from "../provider-definition.ts";
import { authorizationUrl, exchangeCode, pkcePair } from "./code-flow.ts";

/** The OAuthProvider of an OAuth 2.0 definition: the authorization code flow every such provider shares. */
export function oauth2Provider(definition: OAuth2Definition, context: ProviderContext): OAuthProvider {
  const { settings } = context;
  const clientId = settings.clientIds[0] ?? "";
  return {
    name: definition.name,
    takesScopes: definition.takesScopes,
    emailOptional: settings.emailOptional,
    async authorize(request) {
      const endpoints = await Promise.resolve(definition.endpoints(context)).catch((error: unknown) => {
        throw atStage(definition.name, "authorize", error, "its endpoints could not be read");
      });
      const scopes = [...definition.defaultScopes, ...(definition.takesScopes ? request.scopes : [])];
      const renamed = request.params.map(([name, value]) => [definition.renameParams?.[name] ?? name, value] as const);
      const params = [...(definition.authorizeParams ?? []), ...renamed];
      if (!definition.pkce) {
        return {
          url: authorizationUrl({
            endpoint: endpoints.authorization,
            clientId,
            redirectUri: settings.redirectUri,
            state: request.state,
            scopes,
            params,
          }),
        };
      }
      const { verifier, challenge } = await pkcePair();
      const pkceParams = [
        ...params,
        ["code_challenge", challenge] as const,
        ["code_challenge_method", "S256"] as const,
      ];
      const url = authorizationUrl({
        endpoint: endpoints.authorization,
        clientId,
        redirectUri: settings.redirectUri,
        state: request.state,
        scopes,
        params: pkceParams,
      });
      return { url, secret: verifier };
    },
    async complete(callback) {
      const code = callback.params["code"];
      if (!code) throw providerFailure(definition.name, "exchange", "sent no code");
      if (definition.pkce && !callback.secret)
        throw providerFailure(definition.name, "exchange", "no PKCE verifier was kept");
      const endpoints = await definition.endpoints(context);
      const answer = await exchangeCode({
        provider: definition.name,
        tokenEndpoint: endpoints.token,
        clientId,
        secret: definition.clientSecret ? await definition.clientSecret(context) : settings.secret,
        clientAuth: definition.clientAuth,
        code,
        redirectUri: settings.redirectUri,
        codeVerifier: definition.pkce ? (callback.secret ?? undefined) : undefined,
        form: definition.exchangeForm?.(context),
        fetch: context.fetch,
      });
      const profile = await definition.profile(context, answer, callback);
      return { tokens: { accessToken: answer.accessToken, refreshToken: answer.refreshToken }, profile };
    },
    ...(definition.idTokens ? { idTokens: definition.idTokens(context) } : {}),
  };
}
