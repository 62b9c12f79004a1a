import { ASYMMETRIC_ALGORITHMS, DEFAULT_KEY_ALGORITHM } from "@latchkey/adapters-crypto";
import { DEFAULT_BATCH_SIZE } from "@latchkey/import-gotrue";
import { DEVELOPMENT_SITE_URL } from "../config/development.ts";
import { canonicalName, type Setting, type SettingTree, settingsOf } from "../config/setting.ts";
import { SETTINGS } from "../config/settings.ts";
import { GROUPS } from "../config/settings-reference.ts";
import type { Command } from "./usage-errors.ts";

// What `latchkey --help` and `latchkey <command> --help` print. The settings each command reads are listed from
// their declarations (settings.ts), by the groups its loader reads (config/load-config.ts), so they cannot drift.

const WIDTH = 100;

/** The names the settings of these groups are shown under (DATABASE_URL, AUTH_DB_NAMESPACE, ...), wrapped. */
function settingNames(groups: readonly (keyof typeof SETTINGS)[]): string {
  const tree: SettingTree = Object.fromEntries(groups.map((group) => [group, SETTINGS[group]]));
  return wrapped(settingsOf(tree).map(canonicalName));
}

/** What the production profile refuses to start without. */
function requiredInProduction(): string {
  const required = (declared: Setting) => declared.required !== undefined && "profile" in declared.required;
  return wrapped(settingsOf(SETTINGS).filter(required).map(canonicalName));
}

function wrapped(words: readonly string[], indent = "    "): string {
  const lines: string[] = [];
  let line = indent;
  for (const [index, word] of words.entries()) {
    const item = index < words.length - 1 ? `${word},` : word;
    if (line.trim() !== "" && line.length + 1 + item.length > WIDTH) {
      lines.push(line);
      line = indent;
    }
    line += line.trim() === "" ? item : ` ${item}`;
  }
  return [...lines, line].join("\n");
}

/** Where settings come from; `listed` when the names a command reads are listed above it. */
const sources = (listed = true) =>
  "Settings are read from the environment, then from .env in the working directory (the environment\n" +
  `wins), as AUTH_<NAME>, a few as <NAME> alone too${listed ? " (listed so)" : ""}, then as GOTRUE_<NAME>.`;

const main = () => `Latchkey: an authentication server that speaks Supabase Auth's (GoTrue's) HTTP API.

usage: latchkey [COMMAND] [OPTIONS]

Commands:
  serve            runs the server (what \`latchkey\` alone does)
  migrate          applies the database migrations, then exits
  keys             prints the URL, anon key and service_role key to give clients; makes and
                   rotates JWT_KEYS rings
  import gotrue    brings users, identities, MFA factors, passkeys, live sessions and SAML SSO
                   providers over from Supabase Auth's database
  config           prints the effective settings and where each came from, secrets redacted
  help [COMMAND]   prints this help, or a command's

Options:
  -h, --help       prints this help; \`latchkey COMMAND --help\` prints a command's

${sources(false)}
Without DATABASE_URL the development profile runs and no setting is required: \`latchkey serve -h\`
says what it does instead. Every setting, with its default and meaning: docs/settings.md.`;

const serve = () => `usage: latchkey [serve]

Runs the server; it takes no options. It applies the migrations not yet applied, then listens on
API_HOST (every address when unset) and PORT (8081) until SIGTERM or SIGINT, after which it answers
the requests that reach it for up to API_SHUTDOWN_DRAIN (10 s), sends the mail queued, and exits.
A problem an operator can fix (a bad setting, a database that cannot be reached, a port in use)
is said on stderr, with exit code 1.

Without DATABASE_URL, the development profile, for a developer's machine, never for real users:
  - the database is embedded (PGlite), in .latchkey/pgdata under the working directory;
  - access tokens are RS256, signed with a key generated once into .latchkey/jwt-keys.json; the
    anon and service_role keys it logs at start are HS256, with the secret generated once into
    .latchkey/jwt-secret (\`latchkey keys\` prints them again);
  - links in mail lead to this server, http://localhost:PORT (API_EXTERNAL_URL), which redirects
    to ${DEVELOPMENT_SITE_URL} (SITE_URL) once it has confirmed them;
  - mail and SMS are written to the log, links and codes included, instead of being sent (unless
    SMTP_HOST or SMS_PROVIDER is set).

With DATABASE_URL, the production profile: these must be set, and the start lists every problem:
${requiredInProduction()}

Settings: all of them, in these groups; docs/settings.md lists each, with its default and meaning.
${wrapped([...new Set(Object.values(GROUPS))])}
${sources()}`;

const migrate = () => `usage: latchkey migrate

Applies the database migrations not yet applied, then exits; it takes no options. \`serve\` applies
them at start too. It reads the database and log settings alone, so it can run before the rest is
configured, or as a job of its own; several at once are safe (an advisory lock makes one migrate).
Without DATABASE_URL it migrates the development profile's embedded database, .latchkey/pgdata.

Settings it reads (docs/settings.md, "Database" and "Log"):
${settingNames(["db", "log"])}
${sources()}`;

const keys = () => `usage:
  latchkey keys                               prints the URL, anon key and service_role key to
                                              give clients, as lines of an app's .env
  latchkey keys generate [--alg ALG]          prints a new ring for JWT_KEYS: one key, that signs
  latchkey keys add [--to RING] [--alg ALG]   prints the ring with a new key that only verifies
  latchkey keys use KID [--in RING]           prints the ring with KID as its signer
  latchkey keys remove KID [--in RING]        prints the ring without KID (not its signer)

Options:
  --alg ALG     the new key's algorithm: ${ASYMMETRIC_ALGORITHMS.join(", ")} (${DEFAULT_KEY_ALGORITHM} by default)
  --to RING     the ring to add a key to: a JWT_KEYS value; AUTH_JWT_KEYS from the environment
                when not given
  --in RING     the ring to change, likewise
  -h, --help    prints this help

A ring is printed on one line, and nothing else changes: to rotate, deploy each step's ring to
every instance before the next (README, "Signing keys").

Settings: \`latchkey keys\` alone reads the signing and API settings, and signs the keys as the
server would: HS256 with JWT_SECRET (in the development profile, the secret generated into
.latchkey/jwt-secret), or with the ring's signing key where JWT_VALID_METHODS leaves HS256 out;
the URL is API_EXTERNAL_URL (http://localhost:PORT in the development profile).
${settingNames(["jwt", "api"])}
${sources()}
The ring commands read AUTH_JWT_KEYS (or GOTRUE_JWT_KEYS) alone, from the environment only.`;

const importing = () => `usage: latchkey import gotrue (--from URL | --from-env NAME) [OPTIONS]

Reads Supabase Auth's (GoTrue's) tables in the database at URL and writes them into this
configuration's database, migrating it first: SAML SSO providers with their domains, users (SSO users
too), identities, MFA factors, passkeys, and live sessions with their refresh tokens. Running it again updates what changed at the source and keeps what
changed here. Progress goes to stderr, the summary to stdout.

Options:
  --from URL          the source: postgres://user@host:5432/postgres. Leave the password out of it
                      and set PGPASSWORD: a password on the command line shows in the process list
  --from-env NAME     the source's URL is in the environment variable NAME, instead of --from
  --schema NAME       the schema of GoTrue's tables (auth)
  --batch-size N      users per batch, each batch one transaction: 1 to 10000 (${DEFAULT_BATCH_SIZE})
  --dry-run           reads and checks everything, writes nothing, and says what would be written
                      and skipped
  --after USER_ID     resumes after this user (the last one a progress line or summary named)
  --audit             brings the audit log too
  -h, --help          prints this help

The target: DATABASE_URL, or without it the development profile's embedded database
(.latchkey/pgdata), with the other database settings (AUTH_DB_NAMESPACE, ...) of the server that
will serve the users.

Keys: set them before importing to the values that server runs with; what the import writes is
digested and sealed with them, and GoTrue's sealed secrets are opened with them:
  AUTH_JWT_SECRET      the Supabase project's JWT secret, so that the access tokens it issued and
                       its anon and service_role keys keep verifying. It keys what is stored when
                       AUTH_DB_SECRET is unset
  AUTH_DB_SECRET       the value the server keeps: the refresh tokens are stored as digests under
                       it (another value later ends every imported session), and TOTP secrets are
                       sealed with a key derived from it unless the encryption key below is set
  AUTH_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY, AUTH_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY_ID,
  AUTH_SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS
                       the Supabase project's, when it sealed secrets
                       (SECURITY_DB_ENCRYPTION_ENCRYPT): TOTP factors and sessions sealed under a
                       key these do not hold are left behind, each named in the summary

Settings it reads (docs/settings.md, "Database", "Log", "Access tokens" and "Security"):
${settingNames(["db", "log", "jwt", "security"])}
${sources()}`;

const config = () => `usage: latchkey config

Prints the effective settings and where each came from (the environment, .env, its default, the
development profile), secrets redacted; it takes no options. Then it says whether the start would
take them: exit code 0 with the start's warnings, or 1 with its problems on stderr. It reads every
setting, as \`serve\` does (docs/settings.md), and in the development profile makes the generated
secret and key when they are missing, as the start would.
${sources(false)}`;

const HELP: Readonly<Record<Command, () => string>> = { serve, migrate, keys, import: importing, config };

/** The binary's help, or a command's. */
export function helpText(command?: Command): string {
  return command === undefined ? main() : HELP[command]();
}
