import { docsRoutes } from "./routes/docs-routes.ts";
import { fileRoutes } from "./routes/file-routes.ts";
import { jobEventRoutes } from "./routes/job-event-routes.ts";
import { jobRoutes } from "./routes/job-routes.ts";
import { previewRoutes } from "./routes/preview-routes.ts";
import { publicRoutes } from "./routes/public-routes.ts";
import type { RouteSpec } from "./route-spec.ts";
import { webhookRoutes } from "./routes/webhook-routes.ts";
import { uploadRoutes } from "./routes/upload-routes.ts";
import { studioRoutes } from "./routes/studio-routes.ts";

/** Every endpoint of the API, each declared once: the router and the OpenAPI document are built from this list. */
export const ROUTES: readonly RouteSpec[] = [
  ...publicRoutes,
  ...jobRoutes,
  ...uploadRoutes,
  ...jobEventRoutes,
  ...previewRoutes,
  ...webhookRoutes,
  ...docsRoutes,
  ...studioRoutes,
  ...fileRoutes,
];
