// `npm run migrate`: applies pending migrations to DATABASE_URL (or the embedded database).
import pino from "pino";
import { parseEnv } from "@caption/shared/config/env";
import { connectDatabase } from "./connect.ts";

const logger = pino({ level: "info" }, pino.destination(2));
const connection = await connectDatabase(parseEnv(), logger);
await connection.close();
logger.info("migrations applied");
