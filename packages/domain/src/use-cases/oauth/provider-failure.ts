import { AuthError } from "../../errors.ts";
import { OAuthProviderFailure } from "../../ports/oauth-provider.ts";

/**
 * What the client hears when talking to a provider failed: GoTrue's messages, by stage, as a 500 whose cause
 * (with the provider's own words) is logged and never sent. `code` is the callback's, of which GoTrue shows the
 * first four characters.
 */
export function providerFailed(error: unknown, code: string): AuthError {
  if (!(error instanceof OAuthProviderFailure))
    return new AuthError("unexpected_failure", "Unexpected failure", { cause: error });
  switch (error.stage) {
    case "authorize":
      return new AuthError("unexpected_failure", "Unable to start the sign-in with the external provider", {
        cause: error,
      });
    case "exchange":
      return new AuthError("unexpected_failure", `Unable to exchange external code: ${code.slice(0, 4)}`, {
        cause: error,
      });
    case "profile":
      return new AuthError("unexpected_failure", "Error getting user profile from external provider", { cause: error });
    case "id_token":
      return new AuthError("invalid_request", "Bad ID token", { cause: error });
  }
}
