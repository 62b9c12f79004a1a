export {
  createTestIdp,
  type ReadAuthnRequest,
  type TestIdp,
  type TestIdpOptions,
  type TestResponseOptions,
} from "./test-idp.ts";
