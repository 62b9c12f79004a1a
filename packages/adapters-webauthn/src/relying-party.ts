/** The relying party Latchkey is: WEBAUTHN_RP_ID, WEBAUTHN_RP_DISPLAY_NAME and WEBAUTHN_RP_ORIGINS. */
export interface RelyingParty {
  /** The domain credentials are scoped to: the origins' host, or a registrable suffix of it. */
  readonly id: string;
  /** What the browser shows the user as the site's name. */
  readonly name: string;
  /** The origins (`https://app.example.com`) whose pages may run a ceremony; an answer from any other is refused. */
  readonly origins: readonly string[];
}
