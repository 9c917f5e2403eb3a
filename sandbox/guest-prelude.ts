// The script evaluated in every guest context before the program: the TypeScript modules
// in sandbox/guest/ (entry guest-main.ts), bundled into guest-prelude-bundle.ts by
// `npm run bundle`. It builds the only things a program sees (`tools`,
// `ToolCallError`, `console`), enforces the guest-side budgets, and speaks to the host
// with JSON strings only; the messages and global names are in guest-protocol.ts, shared
// by both sides.
export {
  BLOCKING_CALL_GLOBAL,
  CONFIGURE_GLOBAL,
  DELIVER_GLOBAL,
  SEND_GLOBAL,
  START_GLOBAL,
  URL_LIBRARY_GLOBAL,
  type GuestConfig,
  type GuestDelivery,
  type GuestMessage,
} from './guest-protocol.ts';
export {
  GUEST_PRELUDE_BUNDLE as GUEST_PRELUDE_SOURCE,
  GUEST_URL_LIBRARY_BUNDLE as GUEST_URL_LIBRARY_SOURCE,
} from './guest-prelude-bundle.ts';
