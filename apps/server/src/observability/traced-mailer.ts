import type { Mailer } from "@latchkey/domain";
import { context, SpanKind, SpanStatusCode, type Tracer } from "@opentelemetry/api";

/** Where the mail goes: the SMTP server, or nowhere (the development profile's log mailer). */
export interface MailTarget {
  readonly host: string;
  readonly port: number;
}

/**
 * The mailer, with each mail sent a CLIENT span: its kind and the SMTP server, never an address or the content.
 * A failure marks the span with the error's code (EAUTH, EENVELOPE, ...) but not its message, which may quote an
 * address. Loaded only when tracing is on.
 */
export function tracedMailer(mailer: Mailer, tracer: Tracer, target: MailTarget | undefined): Mailer {
  // Without an SMTP server (the development profile), mail is written to the log: the span says only that.
  const name = target ? "smtp send" : "mail send";
  const server = target ? { "server.address": target.host, "server.port": target.port } : {};
  return {
    send: async (email, delivery) => {
      const span = tracer.startSpan(
        name,
        { kind: SpanKind.CLIENT, attributes: { "auth.email.kind": email.kind, ...server } },
        context.active(),
      );
      try {
        await mailer.send(email, delivery);
      } catch (error) {
        span.setAttribute("error.type", errorType(error));
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  };
}

function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && code !== "") return code;
  return error instanceof Error ? error.name : "_OTHER";
}
