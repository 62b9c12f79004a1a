import type { Deps } from "../../deps.ts";
import { normalizeEmail } from "../../model/email.ts";
import { normalizePhone } from "../../model/phone.ts";
import type { User } from "../../model/user.ts";
import { findUserOrFail } from "../../services/accounts/find-user.ts";

/** GoTrue's page size when none is asked for, and ours at most: a page is one query, kept bounded. */
const DEFAULT_PER_PAGE = 50;
export const MAX_PER_PAGE = 1000;

/** The page asked for, from 1, and its size, within bounds. */
export function readPaging(input: { readonly page?: number | undefined; readonly perPage?: number | undefined }): {
  page: number;
  perPage: number;
} {
  const page = Math.max(1, Math.floor(input.page ?? 1));
  const perPage = Math.min(MAX_PER_PAGE, Math.max(1, Math.floor(input.perPage ?? DEFAULT_PER_PAGE)));
  return { page, perPage };
}

export interface AdminListUsersInput {
  /** From 1. */
  readonly page?: number | undefined;
  readonly perPage?: number | undefined;
  /** By creation time; newest first unless `asc`. */
  readonly order?: "asc" | "desc" | undefined;
  /** Part of an email or of user_metadata.full_name, case-insensitive. */
  readonly filter?: string | undefined;
  /** Exact email or phone: indexed lookups, fast however many users there are. */
  readonly email?: string | undefined;
  readonly phone?: string | undefined;
  /** X-JWT-AUD: the audience listed; JWT_AUD when absent. */
  readonly audience?: string | undefined;
}

export interface UserPage {
  readonly users: User[];
  readonly total: number;
  readonly page: number;
  readonly perPage: number;
}

/** GET /admin/users: the users of one audience, as GoTrue lists them. */
export async function adminListUsers(deps: Deps, input: AdminListUsersInput): Promise<UserPage> {
  const { page, perPage } = readPaging(input);
  const { users, total } = await deps.stores.users.list({
    page,
    perPage,
    order: input.order ?? "desc",
    aud: input.audience ?? deps.policy.defaultAudience,
    filter: input.filter || undefined,
    email: input.email ? normalizeEmail(input.email) : undefined,
    phone: input.phone ? normalizePhone(input.phone) : undefined,
  });
  return { users, total, page, perPage };
}

/** GET /admin/users/<id>. */
export function adminGetUser(deps: Deps, input: { readonly userId: string }): Promise<User> {
  return findUserOrFail(deps.stores, input.userId);
}
