import type { PostgresCluster } from "./cluster.ts";
import { waitUntil } from "./processes.ts";

/**
 * `users` locked ACCESS EXCLUSIVE by another session (a migration's or an operator's transaction), held for up to
 * 60 s; resolves once the lock is granted. `release` ends that session, and so the lock.
 */
export async function lockUsersTable(cluster: PostgresCluster, applicationName: string) {
  const locker = cluster.session(
    "begin; lock table users in access exclusive mode; select pg_sleep(60); commit;",
    applicationName,
  );
  await waitUntil(
    "the lock on users",
    () =>
      cluster.query(
        `select 1 from pg_locks l join pg_class c on c.oid = l.relation
          where c.relname = 'users' and l.mode = 'AccessExclusiveLock' and l.granted`,
      ).length > 0,
    { timeoutMs: 10_000 },
  );
  return {
    ended: locker.ended,
    release: () => {
      cluster.query(
        `select pg_terminate_backend(pid) from pg_stat_activity where application_name = '${applicationName}'`,
      );
    },
  };
}
