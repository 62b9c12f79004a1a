export type { RelyingParty } from "./relying-party.ts";
export { createWebAuthnCeremony } from "./webauthn-ceremony.ts";
