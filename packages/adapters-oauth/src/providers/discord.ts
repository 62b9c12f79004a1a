import { fieldsOf, getJson, stringOf } from "../http/provider-http.ts";
import { onlyAddress, profileOf, requiredSubject } from "../profile.ts";
import { baseUrl, type OAuth2Definition } from "../provider-definition.ts";

/** Discord's CDN: a link for the browser, not a host this server calls, so EXTERNAL_DISCORD_URL leaves it alone. */
const CDN = "https://cdn.discordapp.com";

/**
 * Discord: the user from /api/users/@me, with one address whose flag is the user's `verified`. The avatar is a
 * CDN link built from the user's hash, or Discord's default avatar for users who set none.
 */
export const discord: OAuth2Definition<"discord"> = {
  name: "discord",
  title: "Discord",
  defaultScopes: ["email", "identify"],
  takesScopes: true,
  clientAuth: "basic",
  endpoints(context) {
    const api = `${baseUrl(context, "https://discord.com")}/api`;
    return { authorization: `${api}/oauth2/authorize`, token: `${api}/oauth2/token` };
  },
  async profile(context, answer) {
    const api = `${baseUrl(context, "https://discord.com")}/api`;
    const headers = { Authorization: `Bearer ${answer.accessToken}` };
    const user = fieldsOf(await getJson(context.fetch, "discord", { url: `${api}/users/@me`, headers }));
    const subject = requiredSubject("discord", stringOf(user["id"]));
    const username = stringOf(user["username"]);
    const discriminator = stringOf(user["discriminator"]);
    const avatar = avatarUrl(subject, stringOf(user["avatar"]), discriminator);
    const globalName = stringOf(user["global_name"]);
    return profileOf(
      subject,
      api,
      {
        // Users moved to Discord's unique usernames have the discriminator "0": their name is the username alone.
        name:
          username !== undefined && isLegacyDiscriminator(discriminator) ? `${username}#${discriminator}` : username,
        full_name: username,
        avatar_url: avatar,
        picture: avatar,
        custom_claims: globalName === undefined ? undefined : { global_name: globalName },
      },
      onlyAddress(stringOf(user["email"]), user["verified"] === true),
    );
  },
};

/** A discriminator of the legacy username system: a number other than 0 ("0" marks a migrated user). */
function isLegacyDiscriminator(discriminator: string | undefined): discriminator is string {
  return discriminator !== undefined && /^\d+$/.test(discriminator) && Number(discriminator) !== 0;
}

/**
 * The user's avatar (`a_` hashes are animated, hence GIF), else the default avatar Discord shows: `discriminator
 * % 5` for legacy users, `(id >> 22) % 6` for users of the new username system. GoTrue fails the sign-in when the
 * discriminator is not a number; here that user gets the new system's default.
 */
function avatarUrl(id: string, hash: string | undefined, discriminator: string | undefined): string | undefined {
  if (hash !== undefined) return `${CDN}/avatars/${id}/${hash}.${hash.startsWith("a_") ? "gif" : "png"}`;
  if (isLegacyDiscriminator(discriminator)) return `${CDN}/embed/avatars/${Number(discriminator) % 5}.png`;
  // Snowflakes exceed 2^53, hence BigInt; an id that is not one gets no default avatar rather than a failure.
  if (!/^\d+$/.test(id)) return undefined;
  return `${CDN}/embed/avatars/${(BigInt(id) >> 22n) % 6n}.png`;
}
