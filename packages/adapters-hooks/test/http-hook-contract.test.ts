import type { HookBehaviour } from "@latchkey/domain/testing";
import { createInMemoryStores, describeHookCallerContract } from "@latchkey/domain/testing";
import { createHttpHook } from "../src/index.ts";
import { answer, json, type Receiver, type Reply, startReceiver } from "./receiver.ts";

const SECRET = `v1,whsec_${Buffer.alloc(32, 7).toString("base64")}`;

/** How a hook endpoint behaves, as the contract asks: `slow` answers long after the caller's 300 ms. */
function replyOf(behaviour: HookBehaviour, timers: NodeJS.Timeout[]): Reply {
  switch (behaviour.kind) {
    case "answer":
      return json(behaviour.body);
    case "nothing":
      return answer(204);
    case "fail":
      return answer(500, "boom", { "Content-Type": "text/plain" });
    case "slow":
      return (res, request, index) => {
        timers.push(setTimeout(() => json({})(res, request, index), 3_000));
      };
  }
}

describeHookCallerContract("HTTP hook", async () => {
  const receivers: Receiver[] = [];
  const timers: NodeJS.Timeout[] = [];
  return {
    stores: createInMemoryStores().stores,
    expected: {
      slow: { code: "hook_timeout", message: "Failed to reach hook within maximum time of 0.300000 seconds" },
      fail: { code: "unexpected_failure", message: "Unexpected status code returned from hook: 500" },
    },
    async hook(behaviour) {
      const receiver = await startReceiver(replyOf(behaviour, timers));
      receivers.push(receiver);
      const caller = createHttpHook({ uri: receiver.url, secrets: [SECRET], timeoutMs: 300, backoffMs: 10 });
      return { caller, received: async () => receiver.received.map((request) => JSON.parse(request.body)) };
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      await Promise.all(receivers.map((receiver) => receiver.close()));
    },
  };
});
