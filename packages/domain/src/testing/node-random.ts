import { randomBytes, randomInt, randomUUID } from "node:crypto";
import type { Random } from "../ports/random.ts";

export const nodeRandom: Random = {
  uuid: () => randomUUID(),
  token: (bytes) => randomBytes(bytes).toString("base64url"),
  digits: (length) => Array.from({ length }, () => randomInt(10)).join(""),
};
