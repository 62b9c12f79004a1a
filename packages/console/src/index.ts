export { type ConsoleFile, readConsoleFiles } from "./console-files.ts";
