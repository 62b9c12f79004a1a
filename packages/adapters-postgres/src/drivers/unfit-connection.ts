// SQLSTATEs (https://www.postgresql.org/docs/current/errcodes-appendix.html) after which a connection's session
// cannot do the work it is given however often it is retried on it: 25006, a write refused because the session is
// read-only (default_transaction_read_only set for the database or role when it opened, or a standby), which stays
// so for the session's life even once the database takes writes again; class 08, the connection failed; class 57P,
// the server is ending the session (shutdown, a terminated backend, a dropped database). A new connection may find
// things otherwise: the database writable again, or a failover's new primary behind the same address.
const READ_ONLY_TRANSACTION = "25006";
const UNFIT_CLASSES = ["08", "57P"];

/** Whether a statement's failure says its connection should not be used again. */
export function unfitForWork(error: unknown): boolean {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return (
    typeof code === "string" &&
    (code === READ_ONLY_TRANSACTION || UNFIT_CLASSES.some((prefix) => code.startsWith(prefix)))
  );
}
