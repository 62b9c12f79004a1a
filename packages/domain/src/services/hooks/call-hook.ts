import type { Deps, RequestContext } from "../../deps.ts";
import { AuthError } from "../../errors.ts";
import type { HookAnswer, HookCaller, HookName, HookPayload } from "../../ports/hooks.ts";
import type { Stores } from "../../ports/stores.ts";

/** The name GoTrue's payloads give each hook in their `metadata` (its v0hooks names). */
const METADATA_NAMES: { readonly [N in HookName]: string } = {
  custom_access_token: "customize-access-token",
  send_email: "send-email",
  send_sms: "send-sms",
  mfa_verification_attempt: "mfa-verification",
  password_verification_attempt: "password-verification",
  before_user_created: "before-user-created",
  after_user_created: "after-user-created",
};

/** What every payload carries: an id and a time of its own, the hook's name, and the caller's address if known. */
export function hookMetadata(deps: Deps, name: HookName, context: RequestContext | null) {
  return {
    uuid: deps.random.uuid(),
    time: deps.clock.now().toISOString(),
    name: METADATA_NAMES[name],
    ...(context?.ip ? { ip_address: context.ip } : {}),
  };
}

/** How one hook is called: its name, what it is sent, and the stores a function in the database runs on. */
export interface HookCall {
  readonly name: HookName;
  readonly payload: HookPayload;
  /** A transaction's stores when the hook guards a write in it (see ports/hooks.ts), else deps.stores. */
  readonly stores: Stores;
  /** The outbox message the call delivers (HookCallOptions). */
  readonly messageId?: string;
}

/**
 * Calls `hook` as asked. A caller breaking its port's promise (throwing what is no AuthError) still fails the request
 * as GoTrue does, without a word of the cause to the client.
 */
export async function callHook(hook: HookCaller, call: HookCall): Promise<HookAnswer> {
  try {
    return await hook.call(
      call.payload,
      call.stores,
      call.messageId === undefined ? {} : { messageId: call.messageId },
    );
  } catch (error) {
    if (error instanceof AuthError) throw error;
    throw new AuthError("unexpected_failure", `Error running hook URI: ${hook.uri}`, { cause: error });
  }
}
