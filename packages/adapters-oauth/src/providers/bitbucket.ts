import { fieldsOf, getJson, stringOf } from "../http/provider-http.ts";
import { listedAddresses, profileOf, requiredSubject } from "../profile.ts";
import { baseUrl, type OAuth2Definition, type ProviderContext } from "../provider-definition.ts";

/** Pages of /user/emails read at most: Bitbucket pages by 10, and nobody has a hundred addresses. */
const MAX_EMAIL_PAGES = 10;

/** api.bitbucket.org's 2.0 API, or `<URL>/2.0` under EXTERNAL_BITBUCKET_URL. */
function apiUrl(context: ProviderContext): string {
  return `${baseUrl(context, "https://api.bitbucket.org")}/2.0`;
}

/**
 * Bitbucket: the account from /2.0/user, whose id is its `uuid` kept as sent (with its braces), and the addresses
 * from /2.0/user/emails with their own confirmed and primary flags. It takes only its own scopes.
 */
export const bitbucket: OAuth2Definition<"bitbucket"> = {
  name: "bitbucket",
  title: "Bitbucket",
  defaultScopes: ["account", "email"],
  takesScopes: false,
  clientAuth: "basic",
  endpoints(context) {
    const base = baseUrl(context, "https://bitbucket.org");
    return { authorization: `${base}/site/oauth2/authorize`, token: `${base}/site/oauth2/access_token` };
  },
  async profile(context, answer) {
    const api = apiUrl(context);
    const headers = { Authorization: `Bearer ${answer.accessToken}` };
    const user = fieldsOf(await getJson(context.fetch, "bitbucket", { url: `${api}/user`, headers }));
    const emails = await emailEntries(context, api, headers);
    const subject = requiredSubject("bitbucket", stringOf(user["uuid"]), "answered an account without a uuid");
    // Bitbucket documents the avatar under `links`; GoTrue reads a top-level `avatar`, which is kept as a fallback.
    const avatar =
      stringOf(fieldsOf(fieldsOf(user["links"])["avatar"])["href"]) ?? stringOf(fieldsOf(user["avatar"])["href"]);
    const name = stringOf(user["display_name"]);
    return profileOf(
      subject,
      api,
      { name, full_name: name, avatar_url: avatar, picture: avatar },
      listedAddresses(emails, { verified: "is_confirmed", primary: "is_primary" }),
    );
  },
};

/**
 * Every entry of /2.0/user/emails. GoTrue reads the first page only, which can miss the primary address; the
 * `next` links are followed while they stay under the same API, so the token never goes anywhere else.
 */
async function emailEntries(
  context: ProviderContext,
  api: string,
  headers: Readonly<Record<string, string>>,
): Promise<unknown[]> {
  const entries: unknown[] = [];
  let next: string | undefined = `${api}/user/emails`;
  for (let page = 0; next !== undefined && page < MAX_EMAIL_PAGES; page++) {
    const answer = fieldsOf(await getJson(context.fetch, "bitbucket", { url: next, headers }));
    const values = answer["values"];
    if (Array.isArray(values)) entries.push(...values);
    const link = stringOf(answer["next"]);
    next = link?.startsWith(`${api}/user/emails?`) ? link : undefined;
  }
  return entries;
}
