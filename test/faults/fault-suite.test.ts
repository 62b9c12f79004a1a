import { afterEach } from "vitest";
import { releaseAll } from "./support/processes.ts";

// The fault suite (README, "Fault suite"): each check in checks/ breaks one dependency of the binary under load.
// One file, so its checks run one after another, in a lane of their own beside the other test files: a check
// measures latencies, and two at once would each be the other's load. The longest first.
import "./checks/mail-outage.ts";
import "./checks/redis-outage.ts";
import "./checks/postgres-outage.ts";
import "./checks/full-postgres.ts";
import "./checks/sigterm.ts";
import "./checks/sigterm-connections.ts";
import "./checks/locked-table.ts";
import "./checks/read-only-database.ts";
import "./checks/readiness.ts";
import "./checks/server-kill.ts";
import "./checks/oidc-issuer-down.ts";

// Whatever a check started (clusters, Redis, servers, sinks) is stopped after it, pass or fail.
afterEach(releaseAll);
