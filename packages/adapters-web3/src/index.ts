export { createWeb3Verifier } from "./verifier.ts";
