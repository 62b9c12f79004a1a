import type { AuthEmail } from "@latchkey/domain";
import type { MailerOptions } from "./options.ts";
import { type RenderedEmail, renderEmail } from "./render-email.ts";
import { createTemplateLoader } from "./template-loader.ts";

export type EmailRenderer = (email: AuthEmail) => Promise<RenderedEmail>;

/** Renders emails with their configured templates, fetched and cached; the built-in body where there is none. */
export function createEmailRenderer(options: MailerOptions): EmailRenderer {
  const loader = createTemplateLoader(options);
  return async (email) => {
    const url = options.templates?.[email.kind];
    const template = url ? await loader.load(url) : undefined;
    return renderEmail(email, options, template);
  };
}
