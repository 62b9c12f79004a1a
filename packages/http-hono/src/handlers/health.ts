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
 * GET /ready: readiness, Latchkey's addition (GoTrue has none). 200 when the instance can serve, 503 when a
 * dependency it cannot serve without failed; either way each dependency checked is named with "ok" or
 * "unavailable", and nothing else, so it tells a caller nothing about the deployment beyond what it depends on.
 */
export const ready =
  ({ readiness }: HandlerDeps): Handler<AppEnv> =>
  async (c) => {
    const { ready, dependencies } = await readiness();
    return c.json(dependencies, ready ? 200 : 503);
  };

/** GET /settings: the public switches, as the client reads them to know what to offer. */
export const settings =
  ({ settings }: HandlerDeps): Handler<AppEnv> =>
  (c) =>
    c.json(presentSettings(settings));
