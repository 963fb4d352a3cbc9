// The control plane's public entry point: what the embedded mode, the benchmarks and the end-to-end
// tests start. Everything else in this package is internal to it.
export { startApiServer, type ApiServer, type ApiServerOptions } from "./runtime/api-server.ts";
export { startEmbeddedPostgres, type EmbeddedPostgresHandle, type EmbeddedPostgresOptions } from "./db/embedded-postgres.ts";
export { locateDatabase, type DatabaseLocation } from "./db/connect.ts";
export { createKey, type CreateKeyInput } from "./services/account-admin.ts";
export { advertiseService, findAdvertisedService, type ServiceAdvert } from "./runtime/service-advert.ts";
export { newToken as newServiceNonce } from "./services/service-identity.ts";
