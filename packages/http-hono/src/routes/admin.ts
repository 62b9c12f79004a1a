import { AuthError, isUuid, type LinkEmail } from "@latchkey/domain";
import { type Context, Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { errorResponse, handleAuthErrors } from "../errors/error-response.ts";
import { requireAdmin } from "../middleware/require-user.ts";
import { presentAuditEntry } from "../present/audit-entry.ts";
import { setPaginationHeaders } from "../present/pagination.ts";
import { presentUser } from "../present/user.ts";
import { readJson } from "../read-json.ts";
import { queryText, redirectCandidates, requestAudience, requestContext } from "../request-context.ts";
import { AdminDeleteUserBody, AdminUserBody, GenerateLinkBody } from "../schemas.ts";
import type { RouteDeps } from "./route-deps.ts";
import { off } from "./switched-off.ts";

/** Builds the link of a mail that is not sent (generate_link) exactly as the mailer builds a sent one's. */
export type ActionLink = (email: LinkEmail) => string;

/** `page` and `per_page`: whole numbers, or empty for the default (GoTrue's reading). */
function pagination(c: Context): { page: number | undefined; perPage: number | undefined } {
  const read = (name: string) => {
    const raw = queryText(c, name);
    if (raw === undefined || raw === "") return undefined;
    if (!/^\d{1,9}$/.test(raw)) throw new AuthError("validation_failed", "Bad Pagination Parameters");
    return Number(raw);
  };
  return { page: read("page"), perPage: read("per_page") };
}

/** `sort=created_at asc|desc`: creation time is the only order GoTrue offers. */
function sortOrder(c: Context): "asc" | "desc" | undefined {
  const raw = queryText(c, "sort");
  if (!raw) return undefined;
  const [field, direction = "desc", ...rest] = raw.trim().split(/\s+/);
  if (field !== "created_at" || rest.length > 0 || (direction !== "asc" && direction !== "desc")) {
    throw new AuthError("validation_failed", `bad sort field ${JSON.stringify(raw)}`);
  }
  return direction;
}

/** The user a path names. compat: GoTrue answers a malformed id with 404 validation_failed. */
function pathUserId(c: Context<AppEnv>): string | Response {
  const id = c.req.param("user_id") ?? "";
  return isUuid(id) ? id : errorResponse(c, new AuthError("validation_failed", "user_id must be an UUID"), 404);
}

/** /admin/*: for tokens whose role is in JWT_ADMIN_ROLES. */
export const adminRoutes = ({ auth, clientAddress, actionLink }: RouteDeps & { actionLink: ActionLink }) => {
  const createUser = async (c: Context<AppEnv>, pathId: string | undefined) => {
    const body = await readJson(c, AdminUserBody);
    const user = await auth.admin.createUser({
      admin: c.get("admin"),
      id: pathId ?? body.id,
      aud: body.aud,
      role: body.role,
      email: body.email,
      phone: body.phone,
      password: body.password,
      passwordHash: body.password_hash,
      emailConfirm: body.email_confirm,
      phoneConfirm: body.phone_confirm,
      userMetadata: body.user_metadata,
      appMetadata: body.app_metadata,
      banDuration: body.ban_duration,
      audience: requestAudience(c),
      context: requestContext(c, clientAddress),
    });
    return c.json(presentUser(user));
  };

  return new Hono<AppEnv>()
    // A user an admin route names that is not there is a 404 (a token's user that is gone: see requireAdmin).
    .onError(handleAuthErrors({ user_not_found: 404 }))
    .use("/admin/*", requireAdmin(auth))
    .get("/admin/users", async (c) => {
      const listed = await auth.admin.listUsers({
        ...pagination(c),
        order: sortOrder(c),
        filter: queryText(c, "filter"),
        email: queryText(c, "email"),
        phone: queryText(c, "phone"),
        audience: requestAudience(c),
      });
      setPaginationHeaders(c, listed);
      return c.json({ users: listed.users.map(presentUser), aud: requestAudience(c) ?? auth.policy.defaultAudience });
    })
    .post("/admin/users", (c) => createUser(c, undefined))
    .post("/admin/users/:user_id", (c) => {
      const id = pathUserId(c);
      return typeof id === "string" ? createUser(c, id) : id;
    })
    .get("/admin/users/:user_id", async (c) => {
      const id = pathUserId(c);
      if (typeof id !== "string") return id;
      return c.json(presentUser(await auth.admin.getUser({ userId: id })));
    })
    .put("/admin/users/:user_id", async (c) => {
      const id = pathUserId(c);
      if (typeof id !== "string") return id;
      const body = await readJson(c, AdminUserBody);
      const user = await auth.admin.updateUser({
        admin: c.get("admin"),
        userId: id,
        role: body.role,
        email: body.email,
        phone: body.phone,
        password: body.password,
        emailConfirm: body.email_confirm,
        phoneConfirm: body.phone_confirm,
        userMetadata: body.user_metadata,
        appMetadata: body.app_metadata,
        banDuration: body.ban_duration,
        context: requestContext(c, clientAddress),
      });
      return c.json(presentUser(user));
    })
    .delete("/admin/users/:user_id", async (c) => {
      const id = pathUserId(c);
      if (typeof id !== "string") return id;
      // The body is optional: none is a hard delete.
      const body = await readJson(c, AdminDeleteUserBody, { optional: true });
      await auth.admin.deleteUser({
        admin: c.get("admin"),
        userId: id,
        softDelete: body.should_soft_delete,
        context: requestContext(c, clientAddress),
      });
      return c.json({});
    })
    .post("/admin/generate_link", async (c) => {
      const body = await readJson(c, GenerateLinkBody);
      const generated = await auth.admin.generateLink({
        admin: c.get("admin"),
        type: body.type ?? "",
        email: body.email ?? "",
        newEmail: body.new_email,
        password: body.password,
        data: body.data,
        redirectTo: [body.redirect_to, body.redirectTo, ...redirectCandidates(c)],
        audience: requestAudience(c),
        context: requestContext(c, clientAddress),
      });
      const { email } = generated;
      return c.json({
        ...presentUser(generated.user),
        action_link: actionLink(email),
        email_otp: email.otp,
        hashed_token: email.linkToken,
        verification_type: generated.verificationType,
        redirect_to: email.redirectTo,
      });
    })
    // Admin ends of features Latchkey does not have yet, answered as GoTrue answers them switched off.
    .get("/admin/users/:user_id/factors", async (c) => {
      const id = pathUserId(c);
      if (typeof id !== "string") return id;
      await auth.admin.getUser({ userId: id });
      return c.json([]);
    })
    .on(["PUT", "DELETE"], "/admin/users/:user_id/factors/:factor_id", async (c) => {
      const id = pathUserId(c);
      if (typeof id !== "string") return id;
      await auth.admin.getUser({ userId: id });
      if (!isUuid(c.req.param("factor_id"))) return errorResponse(c, new AuthError("validation_failed", "factor_id must be an UUID"), 404);
      throw new AuthError("mfa_factor_not_found", "Factor not found");
    })
    .all("/admin/users/:user_id/passkeys/*", off("passkey_disabled", "Passkeys are disabled"))
    .all("/admin/users/:user_id/passkeys", off("passkey_disabled", "Passkeys are disabled"))
    .all("/admin/sso/*", off("saml_provider_disabled", "SAML 2.0 is disabled"))
    .all("/admin/oauth/*", off("feature_disabled", "OAuth server is disabled"))
    .all("/admin/custom-providers/*", off("feature_disabled", "Custom OAuth providers are disabled"))
    .all("/admin/custom-providers", off("feature_disabled", "Custom OAuth providers are disabled"))
    .get("/admin/audit", async (c) => {
      const listed = await auth.admin.listAudit({ ...pagination(c), query: queryText(c, "query") });
      setPaginationHeaders(c, listed);
      return c.json(listed.entries.map(presentAuditEntry));
    });
};
