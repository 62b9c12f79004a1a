import type { Handler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { presentSettings } from "../present/settings.ts";
import type { HandlerDeps } from "./deps.ts";

/** GET /health: liveness, with no database. */
export const health =
  ({ version }: HandlerDeps): Handler<AppEnv> =>
  (c) =>
    c.json({
      version,
      name: "Latchkey",
      description: "Latchkey is a user registration and authentication API compatible with Supabase Auth",
    });

/** GET /settings: the public switches, as the client reads them to know what to offer. */
export const settings =
  ({ settings }: HandlerDeps): Handler<AppEnv> =>
  (c) =>
    c.json(presentSettings(settings));
