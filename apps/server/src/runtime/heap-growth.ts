import { setFlagsFromString } from "node:v8";

// Imported first by main.ts. After a full collection V8 lets the old generation grow to as much as four times
// what survived it when the program allocates fast. Under load most of what reaches the old generation is request
// state that lived across a database round trip and dies soon after, so the heap, and the RSS with it, grew to
// three times the live set. Growing by 30% over what survived keeps the RSS near the live set at the price of more
// frequent, mostly concurrent, full collections. An operator's own --heap-growing-percent wins.
const HEAP_GROWING_PERCENT = 30;

if (!process.execArgv.some((argument) => /^--heap[-_]growing[-_]percent\b/.test(argument))) {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
