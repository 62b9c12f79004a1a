import type { Metadata } from "./metadata.ts";

/** The link between a user and one sign-in method: `email` and `phone` here, OAuth providers later. */
export interface Identity {
  /** Row id; GoTrue's JSON calls it `identity_id`. */
  readonly id: string;
  readonly userId: string;
  readonly provider: string;
  /** Subject at the provider; for `email` and `phone` identities, the user id. GoTrue's JSON calls it `id`. */
  readonly providerId: string;
  readonly identityData: Metadata;
  readonly lastSignInAt: Date | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** The identity's email, lower-cased, when its data carries one. */
export function identityEmail(identity: Identity): string | null {
  const email = identity.identityData["email"];
  return typeof email === "string" && email !== "" ? email.toLowerCase() : null;
}

/** Providers in the order their identities were created, each once: GoTrue's `app_metadata.providers`. */
export function providersOf(identities: readonly Identity[]): string[] {
  const ordered = [...identities].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  return [...new Set(ordered.map((identity) => identity.provider))];
}
