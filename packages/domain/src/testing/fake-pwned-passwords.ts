import type { PwnedPasswords } from "../ports/pwned-passwords.ts";

/** A leaked-password service that knows the passwords it is given, records what it is asked, and can be down. */
export class FakePwnedPasswords implements PwnedPasswords {
  readonly asked: string[] = [];
  /** While true, every check rejects as an unreachable service would. */
  down = false;

  constructor(private readonly pwned: readonly string[]) {}

  async check(password: string): Promise<"pwned" | "clean"> {
    this.asked.push(password);
    if (this.down) throw new Error("connect ECONNREFUSED 127.0.0.1:9");
    return this.pwned.includes(password) ? "pwned" : "clean";
  }
}
