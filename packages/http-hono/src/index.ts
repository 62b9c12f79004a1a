export type { AppEnv } from "./app-env.ts";
export type { ConsoleFile, ConsoleFiles } from "./console-routes.ts";
export { createHttpApp, type HttpAppOptions } from "./create-http-app.ts";
export type {
  ActionLink,
  EffectiveSetting,
  EffectiveSettings,
  OAuthFlowCookie,
  Readiness,
  ReadinessAnswer,
  ReadinessReport,
  SigningKeys,
} from "./handlers/deps.ts";
export type { Logger } from "./logger.ts";
export type { PublicSettings } from "./present/settings.ts";
export type { ClientAddress } from "./request/envelope.ts";
export { type BodyReader, ClientClosedRequest, MAX_BODY_BYTES, readWebBody } from "./request/request-body.ts";
export { type DefaultHeaders, viaWebResponse } from "./response/default-headers.ts";
export { describeApi } from "./routes.ts";
