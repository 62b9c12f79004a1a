import type { AdminPrincipal, Deps, Principal, RequestContext } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import type { Passkey } from "../../model/webauthn.ts";
import { findUserOrFail } from "../../services/accounts/find-user.ts";
import { recordAdminAudit, recordAudit } from "../../services/audit.ts";
import { assertMayManagePasskeys, passkeyCeremony } from "./passkeys.ts";

/** GoTrue's limit on a passkey's name. */
const MAX_NAME_LENGTH = 120;

/** GET /passkeys: the signed-in user's passkeys, oldest first. */
export async function listPasskeys(deps: Deps, input: { readonly principal: Principal }): Promise<Passkey[]> {
  passkeyCeremony(deps);
  return deps.stores.passkeys.listOfUser(input.principal.user.id);
}

export interface RenamePasskeyInput {
  readonly principal: Principal;
  readonly passkeyId: string;
  readonly friendlyName: string | undefined;
  readonly context: RequestContext;
}

/** PATCH /passkeys/<id>: renames a passkey of the signed-in user (no assurance level needed, as in GoTrue). */
export async function renamePasskey(deps: Deps, input: RenamePasskeyInput): Promise<Passkey> {
  passkeyCeremony(deps);
  const name = input.friendlyName ?? "";
  if (name === "") throw new AuthError("validation_failed", "friendly_name is required");
  if ([...name].length > MAX_NAME_LENGTH) {
    throw new AuthError("validation_failed", `friendly_name must be ${MAX_NAME_LENGTH} characters or less`);
  }
  const user = input.principal.user;
  return deps.tx.run(async (stores) => {
    const passkey = await stores.passkeys.find(user.id, input.passkeyId);
    if (!passkey) throw passkeyNotFound();
    const renamed: Passkey = { ...passkey, friendlyName: name, updatedAt: deps.clock.now() };
    await stores.passkeys.rename(renamed);
    const traits = { passkey_id: passkey.id };
    await recordAudit(deps, stores, { action: "passkey_updated", actor: user, context: input.context, traits });
    return renamed;
  });
}

export interface DeletePasskeyInput {
  readonly principal: Principal;
  readonly passkeyId: string;
  readonly context: RequestContext;
}

/** DELETE /passkeys/<id>: removes a passkey of the signed-in user, at aal2 when the user has a verified factor. */
export async function deletePasskey(deps: Deps, input: DeletePasskeyInput): Promise<void> {
  passkeyCeremony(deps);
  assertMayManagePasskeys(input.principal);
  const user = input.principal.user;
  await deps.tx.run(async (stores) => {
    if (!(await stores.passkeys.delete(user.id, input.passkeyId))) throw passkeyNotFound();
    const traits = { passkey_id: input.passkeyId };
    await recordAudit(deps, stores, { action: "passkey_deleted", actor: user, context: input.context, traits });
  });
}

/** GET /admin/users/<id>/passkeys: served with passkeys off too, as GoTrue does, so an admin can clean up. */
export async function adminListPasskeys(deps: Deps, input: { readonly userId: string }): Promise<Passkey[]> {
  const user = await findUserOrFail(deps.stores, input.userId);
  return deps.stores.passkeys.listOfUser(user.id);
}

export interface AdminDeletePasskeyInput {
  readonly admin: AdminPrincipal;
  readonly userId: string;
  readonly passkeyId: string;
  readonly context: RequestContext;
}

/**
 * DELETE /admin/users/<id>/passkeys/<passkey id>: an admin removes a passkey (a lost device), recorded as theirs;
 * with passkeys off too.
 */
export async function adminDeletePasskey(deps: Deps, input: AdminDeletePasskeyInput): Promise<void> {
  await deps.tx.run(async (stores) => {
    const user = await findUserOrFail(stores, input.userId);
    if (!(await stores.passkeys.delete(user.id, input.passkeyId))) throw passkeyNotFound();
    await recordAdminAudit(deps, stores, {
      action: "passkey_deleted",
      admin: input.admin,
      target: user,
      context: input.context,
      traits: { passkey_id: input.passkeyId },
    });
  });
}

/** GoTrue's 404 for a passkey that is not the user's, with its code (`validation_failed`). */
const passkeyNotFound = () => new AuthError("validation_failed", "Passkey not found", { case: "unknown_passkey" });
