import type { AuthEmail } from "@latchkey/domain";
import { builtInBody } from "./built-in-body.ts";
import { EMAIL_KINDS } from "./email-kinds.ts";
import { expandTemplate } from "./expand-template.ts";
import { expandHtmlTemplate } from "./html-template.ts";
import type { RenderOptions } from "./options.ts";
import { templateVariables } from "./template-variables.ts";

/** One email ready to send, with the link and code it carries for the log mailer. */
export interface RenderedEmail {
  readonly to: string;
  readonly subject: string;
  readonly html: string;
  readonly text: string;
  /** The action link, for emails that have one. */
  readonly link?: string;
  /** The numeric code, for emails that have one. */
  readonly code?: string;
}

/**
 * Renders an email: subject from the configured or default subject, HTML from `template` (an HTML template with
 * `{{ .Name }}` variables, each value escaped for where it stands) or else the built-in body, and text always from the built-in body.
 * Pure: fetching the template is the caller's business (see createEmailRenderer).
 */
export function renderEmail(email: AuthEmail, options: RenderOptions, template?: string): RenderedEmail {
  const variables = templateVariables(email, options);
  const link = variables.values.get("ConfirmationURL");
  const code = variables.values.get("Token");
  const body = builtInBody(email, link, options.siteUrl);
  const subjectTemplate = options.subjects?.[email.kind] ?? EMAIL_KINDS[email.kind].subject;
  // A subject is one header line: a line break from user data must not start another header.
  const subject = expandTemplate(subjectTemplate, variables, (value) => value)
    .replace(/[\r\n]+/g, " ")
    .trim();
  const html = template === undefined ? body.html : expandHtmlTemplate(template, variables);
  return {
    to: email.to,
    subject,
    html,
    text: body.text,
    ...(link === undefined ? {} : { link }),
    ...(code === undefined ? {} : { code }),
  };
}
