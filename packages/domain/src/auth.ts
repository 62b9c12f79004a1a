import { createDurationEstimate } from "./model/duration-estimate.ts";
import type { AuthPolicy } from "./policy.ts";
import type { Ports } from "./ports/index.ts";
import { authenticate, type AuthenticateInput } from "./use-cases/authenticate.ts";
import { deliverDueMessages } from "./use-cases/outbox.ts";
import type { Deps } from "./use-cases/deps.ts";
import { refreshSession, type RefreshSessionInput } from "./use-cases/refresh-session.ts";
import { signInWithPassword, type SignInWithPasswordInput } from "./use-cases/sign-in-with-password.ts";
import { signOut, type SignOutInput } from "./use-cases/sign-out.ts";
import { signUp, type SignUpInput } from "./use-cases/sign-up.ts";
import { updateUser, type UpdateUserInput } from "./use-cases/update-user.ts";

/** The use cases, bound to their ports and policy. */
export function createAuth(ports: Ports, policy: AuthPolicy) {
  const deps: Deps = { ...ports, policy, signupDuration: createDurationEstimate() };
  return {
    policy,
    signUp: (input: SignUpInput) => signUp(deps, input),
    signInWithPassword: (input: SignInWithPasswordInput) => signInWithPassword(deps, input),
    refreshSession: (input: RefreshSessionInput) => refreshSession(deps, input),
    authenticate: (input: AuthenticateInput) => authenticate(deps, input),
    updateUser: (input: UpdateUserInput) => updateUser(deps, input),
    signOut: (input: SignOutInput) => signOut(deps, input),
    deliverDueMessages: (options?: { limit?: number }) => deliverDueMessages(deps, options),
  };
}

export type Auth = ReturnType<typeof createAuth>;
