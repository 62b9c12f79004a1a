import type { AuthEmail } from "@latchkey/domain";
import { unreachable } from "./email-kinds.ts";
import { escapeHtml } from "./escape-html.ts";

/** The parts of a built-in email, rendered the same way to HTML and to text. */
interface BodyContent {
  readonly heading: string;
  readonly paragraphs: readonly string[];
  readonly action?: { readonly label: string; readonly url: string };
  readonly code?: string;
  readonly closing: string;
}

export interface Body {
  readonly html: string;
  readonly text: string;
}

/**
 * The built-in body of an email, for when no template is configured or it cannot be fetched: plain, accessible
 * HTML (no images, no scripts, the link both clickable and visible) and a text part with the same content.
 */
export function builtInBody(email: AuthEmail, link: string | undefined, siteUrl: string): Body {
  const content = contentOf(email, link ?? "", siteUrl);
  return { html: toHtml(content), text: toText(content) };
}

function contentOf(email: AuthEmail, link: string, siteUrl: string): BodyContent {
  const ignore = "If you did not ask for this, you can ignore this email.";
  const alarm = "If you did not make this change, reset your password right away and contact the site's support.";
  switch (email.kind) {
    case "confirmation":
      return {
        heading: "Confirm your email address",
        paragraphs: [`Follow this link to confirm the email address ${email.to}:`],
        action: { label: "Confirm your email address", url: link },
        code: email.otp,
        closing: "If you did not sign up, you can ignore this email.",
      };
    case "invite":
      return {
        heading: "You have been invited",
        paragraphs: [`You have been invited to create an account on ${siteUrl}. Follow this link to accept:`],
        action: { label: "Accept the invitation", url: link },
        code: email.otp,
        closing: "If you were not expecting this invitation, you can ignore this email.",
      };
    case "magic_link":
      return {
        heading: "Your sign-in link",
        paragraphs: ["Follow this link to sign in:"],
        action: { label: "Sign in", url: link },
        code: email.otp,
        closing: "If you did not ask to sign in, you can ignore this email.",
      };
    case "recovery":
      return {
        heading: "Reset your password",
        paragraphs: [`Follow this link to reset the password of the account ${email.to}:`],
        action: { label: "Reset your password", url: link },
        code: email.otp,
        closing: "If you did not ask to reset your password, you can ignore this email: your password stays as it is.",
      };
    case "email_change":
      return {
        heading: "Confirm your new email address",
        paragraphs: [
          `Follow this link to change the email address of your account from ${email.email} to ${email.newEmail}:`,
        ],
        action: { label: "Confirm the change", url: link },
        code: email.otp,
        closing: ignore,
      };
    case "reauthentication":
      return {
        heading: "Your verification code",
        paragraphs: ["Enter this code to confirm it is you."],
        code: email.otp,
        closing: ignore,
      };
    case "password_changed":
      return {
        heading: "Your password was changed",
        paragraphs: [`The password of your account ${email.to} was just changed.`],
        closing: alarm,
      };
    case "email_changed":
      return {
        heading: "Your email address was changed",
        paragraphs: [`The email address of your account was changed from ${email.oldEmail} to ${email.email}.`],
        closing: alarm,
      };
    case "phone_changed":
      return {
        heading: "Your phone number was changed",
        paragraphs: [phoneChange(email.to, email.oldPhone, email.phone)],
        closing: alarm,
      };
    default:
      return unreachable(email);
  }
}

function phoneChange(account: string, oldPhone: string, phone: string): string {
  if (!oldPhone) return `The phone number ${phone} was added to your account ${account}.`;
  if (!phone) return `The phone number ${oldPhone} was removed from your account ${account}.`;
  return `The phone number of your account ${account} was changed from ${oldPhone} to ${phone}.`;
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
