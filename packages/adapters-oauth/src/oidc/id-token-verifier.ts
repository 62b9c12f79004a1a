import type { IdTokenVerifier, ProviderProfile } from "@latchkey/domain";
import type { JWTPayload } from "jose";
import { atStage } from "../http/provider-http.ts";
import type { ProviderContext } from "../provider-definition.ts";
import type { IdTokenCheck } from "./id-token.ts";

export interface IdTokenVerifierOptions {
  /** Where the keys are and which issuers are accepted (from discovery, for most providers). */
  keys(context: ProviderContext): Promise<Pick<IdTokenCheck, "jwksUri" | "issuer">>;
  /** The token's claims as the provider's profile. */
  profile(claims: JWTPayload): ProviderProfile;
  /** Further audiences than the client ids (Apple's EXTERNAL_IOS_BUNDLE_ID). */
  extraAudiences?: readonly string[];
  /** Facebook's Limited Login tokens carry no usable nonce: the check is off whatever the setting says. */
  alwaysSkipNonce?: boolean;
}

/**
 * The id_token grant of one provider: a token the app got from the provider directly, verified against the
 * provider's keys with every client id as an acceptable audience, then read as the provider's profile.
 */
export function idTokenVerifier(context: ProviderContext, options: IdTokenVerifierOptions): IdTokenVerifier {
  return {
    skipNonceCheck: options.alwaysSkipNonce === true || context.settings.skipNonceCheck,
    async verify({ idToken, accessToken }) {
      const keys = await options.keys(context).catch((error: unknown) => {
        throw atStage(context.name, "id_token", error, "its keys could not be read");
      });
      const claims = await context.idTokenKeys.verify({
        provider: context.name,
        idToken,
        ...keys,
        audiences: [...context.settings.clientIds, ...(options.extraAudiences ?? [])],
        accessToken,
      });
      const nonce = claims["nonce"];
      return {
        profile: options.profile(claims),
        nonce: typeof nonce === "string" ? nonce : undefined,
        // Present: the token's check requires it (id-token.ts).
        expiresAt: new Date((claims.exp ?? 0) * 1000),
      };
    },
  };
}
