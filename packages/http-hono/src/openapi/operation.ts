import type * as v from "valibot";

/** The groups of the description, in the order a reader meets them. */
export const TAGS = {
  service: "Health, settings and keys",
  signIn: "Signing up and in",
  user: "The signed-in user",
  providers: "External providers",
  sso: "SAML single sign-on",
  mfa: "Second factors",
  passkeys: "Passkeys",
  admin: "Administration: users",
  adminOAuth: "Administration: OAuth clients",
  adminSso: "Administration: SAML identity providers",
  adminCustom: "Administration: custom providers",
  oauthServer: "OAuth server",
} as const;

type Tag = keyof typeof TAGS;

export interface ResponseDoc {
  readonly description: string;
  /** A JSON body of this shape. */
  readonly json?: v.GenericSchema;
  /** A body that is not JSON: its media type. */
  readonly media?: string;
  /** A redirect: the Location header says where. */
  readonly redirect?: true;
}

/**
 * What the route table cannot say about an endpoint: its words, its query, its body and its answers. Guards (who may
 * call it, captcha) come from the route table itself; errors are the error shape, under `default`.
 */
export interface OperationDoc {
  readonly summary: string;
  readonly description?: string;
  readonly tag: Tag;
  /** Latchkey's own endpoint: Supabase Auth has none. */
  readonly ours?: true;
  /** The setting that switches the endpoint on; otherwise it answers as that feature switched off. */
  readonly feature?: string;
  /** Query parameters, each a string, with what it means. */
  readonly query?: Readonly<Record<string, string>>;
  /** The JSON body, as the handler validates it (request/schemas.ts). */
  readonly body?: v.GenericSchema;
  /** A form body instead (`application/x-www-form-urlencoded`). */
  readonly form?: v.GenericSchema;
  readonly responses: Readonly<Record<number, ResponseDoc>>;
}

export const json = (json: v.GenericSchema, description = "Success"): ResponseDoc => ({ description, json });
export const redirect = (description: string): ResponseDoc => ({ description, redirect: true });
export const noContent: ResponseDoc = { description: "Done; no body" };
