import { describeTokenSignerContract } from "./contracts/token-signer-contract.ts";
import { TestClock } from "./test-clock.ts";
import { TestTokenSigner } from "./test-token-signer.ts";

describeTokenSignerContract("test double", async () => {
  const clock = new TestClock();
  return {
    signer: new TestTokenSigner(clock),
    stranger: new TestTokenSigner(clock, "another-test-key"),
    now: () => Math.floor(clock.now().getTime() / 1000),
  };
});
