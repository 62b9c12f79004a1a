import type { FlowEvents } from "@latchkey/domain";
import type { Logger } from "pino";

/**
 * The flow events an operator must hear of at once, as warnings: a WebAuthn credential whose signature counter went
 * backwards (a cloned authenticator key; the sign-in was refused), and a password let through unchecked because
 * the leaked-password service could not be asked (one refused for it is logged with the request's failure).
 */
export function securityLog(log: Pick<Logger, "warn">): FlowEvents {
  return {
    record(event) {
      if (event.kind === "pwned_check_failed") {
        if (event.refused) return;
        log.warn(
          { reason: event.reason },
          "Unable to perform password strength check with HaveIBeenPwned.org, pwned passwords are being allowed",
        );
        return;
      }
      if (event.kind !== "webauthn_counter_regressed") return;
      const { credential, id, userId } = event;
      log.warn(
        { credential, credential_id: id, user_id: userId },
        "WebAuthn signature counter went backwards: the credential may have been cloned; the attempt was refused",
      );
    },
  };
}
