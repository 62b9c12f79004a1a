import type { Logger } from "pino";
import { failureFields } from "../logging/outage-log.ts";

/**
 * How long a finding about the SMTP server stands: asked later (GET /ready, a metrics collection), it is checked
 * again in the background. At most one connection to the mail server per this long, whoever asks how often.
 */
export const SMTP_RECHECK_MS = 30_000;

/** Whether mail can be delivered, as far as connecting to the SMTP server tells: checked at start, then on demand. */
export interface SmtpAvailability {
  /**
   * For GET /ready: resolves when the latest check found the server usable, rejects when it did not; before the
   * first check ends, waits for it. A finding older than SMTP_RECHECK_MS starts another check, not waited for.
   */
  check(): Promise<void>;
  /** The latest finding, for the metric: undefined before the first check ends. Rechecks as `check` does. */
  available(): boolean | undefined;
  /** Checks under way are no longer reported, and none is started (the mailer is closing). */
  stop(): void;
}

export interface SmtpAvailabilityOptions {
  /** Connects and authenticates, then hangs up (the SMTP mailer's `verify`); rejects with why it could not. */
  readonly verify: () => Promise<void>;
  readonly log: Logger;
  /** `host:port`, for the log. */
  readonly server: string;
  readonly recheckMs?: number;
  readonly now?: () => number;
}

/**
 * Checks the SMTP server now, in the background, and says in one log line whether mail can be delivered: a wrong
 * SMTP_HOST, port or password shows at start rather than as retries after the first sign-up. Later checks log a
 * line only when the finding changes.
 */
export function watchSmtpAvailability(options: SmtpAvailabilityOptions): SmtpAvailability {
  const { log, server } = options;
  const now = options.now ?? Date.now;
  const recheckMs = options.recheckMs ?? SMTP_RECHECK_MS;
  let finding: { readonly ok: boolean; readonly at: number } | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  const settle = (ok: boolean, error?: unknown) => {
    if (stopped) return;
    const before = finding?.ok;
    finding = { ok, at: now() };
    if (before === ok) return;
    if (ok) {
      const again = before === undefined ? "" : " again";
      log.info({ smtp: server }, `mail: the SMTP server accepts connections${again}; mail can be delivered`);
    } else {
      log.warn(
        { smtp: server, ...failureFields(error) },
        "mail: the SMTP server cannot be used; mail cannot be delivered, and waits in the outbox, retried, until it can",
      );
    }
  };

  const run = (): Promise<void> => {
    running ??= options
      .verify()
      .then(
        () => settle(true),
        (error: unknown) => settle(false, error),
      )
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  const refresh = () => {
    if (!stopped && finding !== undefined && now() - finding.at >= recheckMs) void run();
  };

  void run();
  return {
    check: async () => {
      refresh();
      if (finding === undefined) await running;
      if (!finding?.ok) throw new Error("the SMTP server cannot be used");
    },
    available: () => {
      refresh();
      return finding?.ok;
    },
    stop: () => {
      stopped = true;
    },
  };
}
