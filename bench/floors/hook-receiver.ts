// The custom_access_token hook's HTTP endpoint for the bench's `hook http` rows, in a process of its own so that it
// takes no time from the load generator: it answers every call 200 with the claims it was sent plus one, and checks
// no signature (the server signs each call all the same). GET /ready answers once it listens.

import { createServer } from "node:http";

const port = Number(process.env["PORT"]);

const server = createServer((request, response) => {
  if (request.method === "GET" && request.url === "/ready") {
    response.writeHead(200).end();
    return;
  }
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    const payload = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { claims?: Record<string, unknown> };
    const answer = JSON.stringify({ claims: { ...payload.claims, user_role: "member" } });
    response.writeHead(200, { "content-type": "application/json" }).end(answer);
  });
});
// The server's fetch keeps its connections open between calls, as a hook's client would.
server.keepAliveTimeout = 60_000;
server.listen(port, "127.0.0.1");
