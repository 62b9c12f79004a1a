import type { FlowEvents } from "@latchkey/domain";
import type { Logger } from "pino";

/**
 * The flow events an operator must hear of at once, as warnings: a WebAuthn credential whose signature counter went
 * backwards (a cloned authenticator key; the sign-in was refused), and a password let through unchecked because
 * the leaked-password service could not be asked (one refused for it is logged with the request's failure), and a
 * SAML provider's metadata about to expire or gone stale.
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
      if (event.kind === "saml_metadata_attention") {
        const { problem, providerId, entityId, validUntil, reason } = event;
        const fields = { sso_provider_id: providerId, saml_entity_id: entityId, valid_until: validUntil, reason };
        log.warn(
          fields,
          problem === "expiring"
            ? "SAML Metadata for identity provider will expire soon! Update its metadata_xml!"
            : "SAML Metadata could not be retrieved, continuing with existing metadata",
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
