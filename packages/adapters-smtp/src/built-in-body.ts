import type { AuthEmail } from "@latchkey/domain";
import { type BodyContent, kindOf } from "./email-kinds.ts";
import { escapeHtml } from "./escape-html.ts";

export interface Body {
  readonly html: string;
  readonly text: string;
}

/**
 * The built-in body of an email, for when no template is configured or it cannot be fetched: plain, accessible
 * HTML (no images, no scripts, the link both clickable and visible) and a text part with the same content.
 */
export function builtInBody(email: AuthEmail, link: string | undefined, siteUrl: string): Body {
  const content = kindOf(email).body(email, link ?? "", siteUrl);
  return { html: toHtml(content), text: toText(content) };
}

// Inline styles only: many mail clients drop <style> blocks.
const BODY_STYLE = [
  "margin:0",
  "padding:24px",
  "font-family:Helvetica,Arial,sans-serif",
  "font-size:16px",
  "line-height:1.5",
  "color:#1a1a1a",
  "background:#ffffff",
].join(";");

function toHtml(content: BodyContent): string {
  const lines = [
    "<!doctype html>",
    '<html lang="en">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(content.heading)}</title></head>`,
    `<body style="${BODY_STYLE}">`,
    `<h1 style="font-size:20px;margin:0 0 16px">${escapeHtml(content.heading)}</h1>`,
    ...content.paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`),
  ];
  if (content.action) {
    const url = escapeHtml(content.action.url);
    lines.push(
      `<p><a href="${url}" style="color:#0b57d0;font-weight:bold">${escapeHtml(content.action.label)}</a></p>`,
      "<p>If the link does not work, copy this address into your browser:<br>",
      `<span style="word-break:break-all">${url}</span></p>`,
    );
  }
  if (content.code) {
    const intro = content.action ? "Or enter this code:" : "Your code:";
    const code = `<strong style="font-size:20px;letter-spacing:2px">${escapeHtml(content.code)}</strong>`;
    lines.push(`<p>${intro} ${code}</p>`);
  }
  lines.push(`<p style="color:#555555;font-size:14px">${escapeHtml(content.closing)}</p>`, "</body>", "</html>");
  return `${lines.join("\n")}\n`;
}

function toText(content: BodyContent): string {
  const blocks = [content.heading, ...content.paragraphs];
  if (content.action) blocks.push(`${content.action.label}: ${content.action.url}`);
  if (content.code) blocks.push(`${content.action ? "Or enter this code:" : "Your code:"} ${content.code}`);
  blocks.push(content.closing);
  return `${blocks.join("\n\n")}\n`;
}
