export { newSamlPrivateKey } from "./private-key.ts";
export {
  createTestIdp,
  type ReadAuthnRequest,
  type TestIdp,
  type TestIdpOptions,
  type TestResponseOptions,
} from "./test-idp.ts";
