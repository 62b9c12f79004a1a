import type { FactorSecrets } from "../ports/factor-secrets.ts";

/** Seals reversibly, bound to the factor's id, and never leaves the secret readable as it was. */
export const testFactorSecrets: FactorSecrets = {
  seal: (factorId, secret) => `sealed:${Buffer.from(JSON.stringify([factorId, secret])).toString("base64url")}`,
  open(factorId, sealed) {
    const [boundTo, secret] = JSON.parse(Buffer.from(sealed.replace(/^sealed:/, ""), "base64url").toString("utf8")) as [
      string,
      string,
    ];
    if (boundTo !== factorId) throw new Error("sealed for another factor");
    return secret;
  },
};
