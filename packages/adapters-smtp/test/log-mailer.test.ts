import { describe, expect, it } from "vitest";
import { createLogMailer, type LogEntry, renderEmail } from "../src/index.ts";
import { CODE, emailOf, TO, TOKEN } from "./support.ts";

const options = { externalUrl: "http://localhost:9999", siteUrl: "http://localhost:3000" } as const;

describe("log mailer", () => {
  it("writes what the SMTP mailer would send, with the link and the code", async () => {
    const entries: LogEntry[] = [];
    const mailer = createLogMailer({ ...options, write: (entry) => entries.push(entry) });
    await mailer.send(emailOf("magic_link"), { messageId: "m-1" });
    await mailer.send(emailOf("reauthentication"), { messageId: "m-2" });
    await mailer.send(emailOf("password_changed"), { messageId: "m-3" });

    const magic = renderEmail(emailOf("magic_link"), options);
    expect(entries[0]).toEqual({
      messageId: "m-1",
      to: TO,
      subject: "Your sign-in link",
      text: magic.text,
      link: magic.link,
      code: CODE,
    });
    expect(new URL(entries[0]?.link ?? "").searchParams.get("token")).toBe(TOKEN);
    expect(entries[1]).toMatchObject({ subject: `${CODE} is your verification code`, code: CODE });
    expect(entries[1]).not.toHaveProperty("link");
    expect(entries[2]).toEqual({
      messageId: "m-3",
      to: TO,
      subject: "Your password was changed",
      text: expect.any(String),
    });
  });
});
