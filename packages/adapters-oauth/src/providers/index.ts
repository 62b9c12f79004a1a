import type { OAuthProvider } from "@latchkey/domain";
import { oauth2Provider } from "../oauth2/oauth2-provider.ts";
import type { OAuth2Definition, ProviderContext } from "../provider-definition.ts";
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

/** Makes a provider from its context: an OAuth 2.0 definition's code flow, or a flow of its own (Twitter's 1.0a). */
export type ProviderFactory = (context: ProviderContext) => OAuthProvider;

const codeFlow =
  (definition: OAuth2Definition): ProviderFactory =>
  (context) =>
    oauth2Provider(definition, context);

/** Every provider, by its canonical name. */
export const PROVIDERS: Readonly<Record<string, ProviderFactory>> = {
  github: codeFlow(github),
  apple: codeFlow(apple),
  azure: codeFlow(azure),
  facebook: codeFlow(facebook),
  google: codeFlow(google),
  keycloak: codeFlow(keycloak),
  linkedin: codeFlow(linkedin),
  slack: codeFlow(slack),
  bitbucket: codeFlow(bitbucket),
  discord: codeFlow(discord),
  figma: codeFlow(figma),
  gitlab: codeFlow(gitlab),
  notion: codeFlow(notion),
  spotify: codeFlow(spotify),
  twitter,
  snapchat: codeFlow(snapchat),
  twitch: codeFlow(twitch),
  workos: codeFlow(workos),
  x: codeFlow(x),
};
