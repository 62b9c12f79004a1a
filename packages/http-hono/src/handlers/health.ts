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

/**
 * GET /ready: readiness, Latchkey's addition (GoTrue has none). 200 when every dependency answered, 503 when one did
 * not, each named with "ok" or "unavailable"; nothing else, so it tells a caller nothing about the deployment
 * beyond what it depends on.
 */
export const ready =
  ({ readiness }: HandlerDeps): Handler<AppEnv> =>
  async (c) => {
    const report = await readiness();
    return c.json(report, Object.values(report).every((state) => state === "ok") ? 200 : 503);
  };

/** GET /settings: the public switches, as the client reads them to know what to offer. */
export const settings =
  ({ settings }: HandlerDeps): Handler<AppEnv> =>
  (c) =>
    c.json(presentSettings(settings));
