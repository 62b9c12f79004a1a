export {
  createRangeApiPwnedPasswords,
  DEFAULT_PWNED_PASSWORDS_TIMEOUT_MS,
  DEFAULT_PWNED_PASSWORDS_URL,
  DEFAULT_PWNED_PASSWORDS_USER_AGENT,
  PwnedPasswordsError,
  type RangeApiOptions,
} from "./range-api.ts";
