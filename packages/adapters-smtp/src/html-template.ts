import { escapeForContext } from "./escape-by-context.ts";
import { expandTemplate, literalParts, type TemplateVariables } from "./expand-template.ts";
import { actionContexts } from "./html-context.ts";

/**
 * An operator's HTML template filled in, each value escaped for where it stands in the document (see
 * html-context.ts): in text, in an attribute, in a URL (where `javascript:` and other schemes do not survive), in
 * script or style. A value is never read as markup or as template code.
 */
export function expandHtmlTemplate(template: string, variables: TemplateVariables): string {
  const contexts = actionContexts(literalParts(template));
  return expandTemplate(template, variables, (value, action) => escapeForContext(value, contexts[action]!));
}
