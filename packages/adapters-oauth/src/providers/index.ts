import { apple } from "./apple.ts";
import { azure } from "./azure.ts";
import { bitbucket } from "./bitbucket.ts";
import { discord } from "./discord.ts";
import { facebook } from "./facebook.ts";
import { figma } from "./figma.ts";
import { github } from "./github.ts";
import { gitlab } from "./gitlab.ts";
import { google } from "./google.ts";
import { keycloak } from "./keycloak.ts";
import { linkedin } from "./linkedin.ts";
import { notion } from "./notion.ts";
import { slack } from "./slack.ts";
import { snapchat } from "./snapchat.ts";
import { spotify } from "./spotify.ts";
import { twitch } from "./twitch.ts";
import { twitter } from "./twitter.ts";
import { workos } from "./workos.ts";
import { x } from "./x.ts";

/**
 * Every provider Latchkey signs in with (GoTrue's, and `x`), in the order the settings list them: a new provider
 * is its file and one entry here, and its settings and the domain's catalog follow.
 */
export const PROVIDERS = [
  apple,
  azure,
  bitbucket,
  discord,
  facebook,
  figma,
  github,
  gitlab,
  google,
  keycloak,
  linkedin,
  notion,
  slack,
  snapchat,
  spotify,
  twitch,
  twitter,
  workos,
  x,
] as const;

/** A provider's canonical name. */
export type OAuthProviderName = (typeof PROVIDERS)[number]["name"];
