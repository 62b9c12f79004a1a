import { useState } from "preact/hooks";
import { messageOf } from "../load.ts";

export type Message = { text: string; error?: boolean } | undefined;

/**
 * Runs an admin's action, one at a time: `busy` while it runs (buttons disable), then its outcome as a message for
 * the Notice beside the buttons.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<Message>(undefined);
  const run = async (action: () => Promise<string | undefined>) => {
    setBusy(true);
    setMessage(undefined);
    try {
      const done = await action();
      if (done) setMessage({ text: done });
    } catch (error) {
      setMessage({ text: messageOf(error), error: true });
    } finally {
      setBusy(false);
    }
  };
  return { busy, message, run, setMessage };
}
