import type { Deps } from "../../deps.ts";
import type { AuthSms } from "../../model/sms.ts";
import type { User } from "../../model/user.ts";
import { presentUser } from "../../model/user-json.ts";
import { hookMetadata } from "./call-hook.ts";

/** The send_sms hook's payload, as GoTrue's: the user, and the code with its number (and `sms_type: mfa` for MFA). */
export function sendSmsPayload(deps: Deps, { sms, user, id }: { sms: AuthSms; user: User; id: string }) {
  return {
    // The message's id, on every attempt at it: a receiver may drop a duplicate by either.
    metadata: { ...hookMetadata(deps, "send_sms", null), uuid: id },
    user: presentUser(user),
    sms: { otp: sms.otp, ...(sms.kind === "mfa" ? { sms_type: "mfa" } : {}), phone: sms.to },
  };
}
