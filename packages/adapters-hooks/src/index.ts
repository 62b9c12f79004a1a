export { createHttpHook, type HttpHookOptions } from "./http-hook.ts";
export { checkHttpHookSettings, type HttpHookSettings, type HttpHookSettingsProblem } from "./http-hook-settings.ts";
