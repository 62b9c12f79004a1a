import type { FlowEvent, FlowEvents } from "@latchkey/domain";
import type { Logger } from "pino";

/**
 * One `info` line per mail or SMS delivered, whoever sent it: the outbox worker, or a request that texted its code
 * at once. security: what the message is and its outbox id (a mail's Message-ID), never whom it is for or what it
 * says. Failures are the worker's to log, with the mail server's answer.
 */
export function deliveryLog(log: Pick<Logger, "info">): FlowEvents {
  return {
    record(event) {
      if (event.kind !== "message_delivered") return;
      const { channel, kind } = event.message;
      log.info({ channel, kind, message_id: event.id }, "message delivered");
    },
  };
}

/** Every event to each of `sinks`, in order. */
export function eachOf(...sinks: readonly FlowEvents[]): FlowEvents {
  return {
    record(event: FlowEvent) {
      for (const sink of sinks) sink.record(event);
    },
  };
}
