import { fieldsOf, getJson, stringOf } from "../http/provider-http.ts";
import { onlyAddress, profileOf, requiredSubject } from "../profile.ts";
import { baseUrl, type OAuth2Definition, type ProviderContext } from "../provider-definition.ts";

/** api.spotify.com's v1 API, or `<URL>/v1` under EXTERNAL_SPOTIFY_URL (which also replaces accounts.spotify.com). */
function apiUrl(context: ProviderContext): string {
  return `${baseUrl(context, "https://api.spotify.com")}/v1`;
}

/**
 * Spotify: the user from /v1/me, pictured by its largest image. Spotify does not say whether the address was
 * confirmed, so it is never reported as verified (as in GoTrue).
 */
export const spotify: OAuth2Definition<"spotify"> = {
  name: "spotify",
  title: "Spotify",
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
    const user = fieldsOf(await getJson(context.fetch, "spotify", { url: `${api}/me`, headers }));
    const subject = requiredSubject("spotify", stringOf(user["id"]));
    const name = stringOf(user["display_name"]);
    const image = largestImage(user["images"]);
    return profileOf(
      subject,
      api,
      { name, full_name: name, avatar_url: image, picture: image },
      onlyAddress(stringOf(user["email"]), false),
    );
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
