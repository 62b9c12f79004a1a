import { describeOAuthProviderContract } from "@latchkey/domain/testing";
import { afterEach, describe, expect, it } from "vitest";
import { PROVIDERS } from "../src/providers/index.ts";
import { FIXTURES } from "./fixtures/index.ts";
import { subjectOf } from "./support/fixture.ts";
import { closeStandIns } from "./support/stand-in.ts";

afterEach(closeStandIns);

describe("the OAuth provider contract", () => {
  it("has one fixture for every provider", () => {
    expect(FIXTURES.map((fixture) => fixture.definition)).toEqual([...PROVIDERS]);
  });
});

describeOAuthProviderContract(FIXTURES, subjectOf);
