import type { ProviderEmail } from "@latchkey/domain";
import { claimsOf, fieldsOf, getJson, providerFailure, stringOf } from "../http/provider-http.ts";
import { baseUrl, type OAuth2Definition, type ProviderContext } from "../provider-definition.ts";

/** api.spotify.com's v1 API, or `<URL>/v1` under EXTERNAL_SPOTIFY_URL (which also replaces accounts.spotify.com). */
function apiUrl(context: ProviderContext): string {
  return `${baseUrl(context, "https://api.spotify.com")}/v1`;
}

/**
 * Spotify: the user from /v1/me, pictured by its largest image. Spotify does not say whether the address was
 * confirmed, so it is never reported as verified (as in GoTrue).
 */
export const spotify: OAuth2Definition = {
  name: "spotify",
  defaultScopes: ["user-read-email"],
  takesScopes: true,
  clientAuth: "basic",
  endpoints(context) {
    const accounts = baseUrl(context, "https://accounts.spotify.com");
    return { authorization: `${accounts}/authorize`, token: `${accounts}/api/token` };
  },
  async profile(context, answer) {
    const api = apiUrl(context);
    const headers = { Authorization: `Bearer ${answer.accessToken}` };
    const user = fieldsOf(await getJson(context.fetch, "spotify", `${api}/me`, headers));
    const subject = stringOf(user["id"]);
    if (subject === undefined) throw providerFailure("spotify", "profile", "answered a user without an id");
    const image = largestImage(user["images"]);
    const address = stringOf(user["email"]);
    const emails: ProviderEmail[] = address === undefined ? [] : [{ address, verified: false, primary: true }];
    return {
      subject,
      claims: claimsOf({
        iss: api,
        sub: subject,
        provider_id: subject,
        name: stringOf(user["display_name"]),
        full_name: stringOf(user["display_name"]),
        avatar_url: image,
        picture: image,
      }),
      emails,
    };
  },
};

/** The URL of the image with the largest area; Spotify may leave sizes `null` (read as 0); the first wins a tie. */
function largestImage(images: unknown): string | undefined {
  let best: { url: string; area: number } | undefined;
  for (const entry of Array.isArray(images) ? images : []) {
    const fields = fieldsOf(entry);
    const url = stringOf(fields["url"]);
    if (url === undefined) continue;
    const size = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : 0);
    const area = size(fields["height"]) * size(fields["width"]);
    if (best === undefined || area > best.area) best = { url, area };
  }
  return best?.url;
}
